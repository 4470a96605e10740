import type { Db } from './db';

/**
 * Which source sessions the legacy notes import has committed, with a hash of the bullets it
 * committed for each: a restart after a crash skips a session whose bullets are unchanged.
 */
export function importedBulletsHash(db: Db, sessionId: string): string | null {
  const row = db.prepare('SELECT bullets_hash FROM legacy_import_sessions WHERE session_id = ?').get(sessionId) as
    { bullets_hash: string } | undefined;
  return row?.bullets_hash ?? null;
}

export function rememberLegacyImport(db: Db, sessionId: string, bulletsHash: string, bullets: number, now: number) {
  db.prepare(
    `INSERT INTO legacy_import_sessions (session_id, bullets_hash, bullet_count, imported_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET bullets_hash = excluded.bullets_hash, bullet_count = excluded.bullet_count,
       imported_at = excluded.imported_at`,
  ).run(sessionId, bulletsHash, bullets, now);
}

export function countLegacyImportedSessions(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM legacy_import_sessions').get() as { n: number }).n;
}
