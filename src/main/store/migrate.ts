import type Database from 'better-sqlite3';
import { CommandError } from '../../shared/errors';
import { migrations, type Migration } from './migrations';
import { factIndexTerms } from '../text/fact-index';

const latest = (list: Migration[]) => list.reduce((max, m) => Math.max(max, m.version), 0);

/** Applies each pending migration once, each in its own transaction, recorded in schema_migrations. */
export function migrate(db: Database.Database, list: Migration[] = migrations): number[] {
  // Functions the migrations call: the fact index's row of a fact (migration 102).
  db.function('fact_index_terms', { deterministic: true }, (scopeId, text) =>
    factIndexTerms(Number(scopeId), String(text)),
  );
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
  );
  const known = latest(list);
  const newest = Math.max(0, ...applied);
  if (newest > known) {
    throw new CommandError(
      'unavailable',
      `memory.db has schema version ${newest} but this EvoFlux Memory only knows up to ${known}: ` +
        'it was written by a newer version. Upgrade the app; the database was not touched.',
    );
  }
  // A migration numbered below one already applied would run after it here but before it on a
  // fresh store: two different schemas from one build. Refuse before touching anything.
  const late = list.filter((m) => !applied.has(m.version) && m.version < newest).sort((a, b) => a.version - b.version);
  if (late.length > 0) {
    throw new CommandError(
      'unavailable',
      `migration ${late[0]!.version} (${late[0]!.name}) is numbered below ${newest}, which memory.db already has: ` +
        `a new migration must be numbered above every applied one. The database was not touched.`,
    );
  }
  const ran: number[] = [];
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
  for (const m of [...list].sort((a, b) => a.version - b.version)) {
    if (applied.has(m.version)) continue;
    // Two processes opening a new home at once both find the migration pending; the second one
    // to get the write lock finds it applied and skips it.
    const done = db
      .transaction(() => {
        if (isApplied.get(m.version)) return false;
        db.exec(m.up);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
          m.version,
          m.name,
          Date.now(),
        );
        return true;
      })
      .immediate();
    if (done) ran.push(m.version);
  }
  return ran;
}

export const schemaVersion = (db: Database.Database): number =>
  (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number }).v;
