import type Database from 'better-sqlite3';
import type { Scope } from '../../src/shared/domain';
import { createHash } from 'node:crypto';
import { foldForKey } from '../../src/main/text/fact-text';

/** The dedupe key schemas 50 to 103 stored: the first 52 bits of sha256 of the folded text. */
export function oldFactKey(text: string): number {
  const digest = createHash('sha256').update(foldForKey(text)).digest();
  return digest.readUIntBE(0, 6) * 16 + (digest[6]! >> 4);
}

/**
 * A fact written the way versions with schema 50 to 101 wrote one (a tag column and the raw text
 * in the fact index), for upgrade tests: the product's store writes today's layout, which an
 * older schema does not have.
 */
/** The id of a scope in an old store's memory_scopes, added when missing. */
export function oldScopeId(db: Database.Database, scope: string, key: string): number {
  db.prepare('INSERT OR IGNORE INTO memory_scopes (scope, scope_key) VALUES (?, ?)').run(scope, key);
  return (
    db.prepare('SELECT id FROM memory_scopes WHERE scope = ? AND scope_key = ?').get(scope, key) as { id: number }
  ).id;
}

export function writeOldFact(
  db: Database.Database,
  f: { id: string; text: string; kind: string; scope: Scope; key: string; sessionId: string; now: number },
): number {
  const scopeId = oldScopeId(db, f.scope, f.key);
  const seq = Number(
    db
      .prepare(
        `INSERT INTO memory_facts (id, scope_id, scope, scope_key, kind, text, normalized_key, confidence, reinforcement,
           origin, first_seen_at, last_seen_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'medium', 1, 'extraction', ?, ?, ?)`,
      )
      .run(f.id, scopeId, f.scope, f.key, f.kind, f.text, oldFactKey(f.text), f.now, f.now, f.now).lastInsertRowid,
  );
  const tag = 's' + Buffer.from(`${f.scope}:${f.key}`, 'utf8').toString('hex');
  db.prepare('INSERT INTO memory_facts_fts (rowid, tag, text) VALUES (?, ?, ?)').run(seq, tag, f.text);
  db.prepare('UPDATE memory_scopes SET facts = facts + 1 WHERE id = ?').run(scopeId);
  db.prepare(
    'INSERT INTO memory_fact_evidence (fact_seq, session_id, message_id, created_at, last_seen_at) VALUES (?, ?, NULL, ?, ?)',
  ).run(seq, f.sessionId, f.now, f.now);
  return seq;
}
