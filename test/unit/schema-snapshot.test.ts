import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../src/main/store/migrate';
import { migrations } from '../../src/main/store/migrations';
import { tempHome } from '../helpers/home';

/**
 * The schema a fresh store gets, and a hash of every migration that built it, recorded in
 * test/fixtures/schema-snapshot.json. The schema may only change through a new migration: an
 * edited migration, or a table created outside the migrations, fails here. After adding a
 * migration, record the new snapshot with
 *   UPDATE_SCHEMA_SNAPSHOT=1 npx vitest run test/unit/schema-snapshot.test.ts
 */
const SNAPSHOT = path.resolve(__dirname, '../fixtures/schema-snapshot.json');

interface Snapshot {
  migrations: { version: number; name: string; sha256: string }[];
  schema: { type: string; name: string; sql: string | null }[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const flat = (sql: string | null) => (sql === null ? null : sql.replace(/\s+/g, ' ').trim());

function current(file: string): Snapshot {
  const db = new Database(file);
  try {
    migrate(db);
    const schema = db
      .prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
      .all() as Snapshot['schema'];
    return {
      migrations: [...migrations]
        .sort((a, b) => a.version - b.version)
        .map((m) => ({ version: m.version, name: m.name, sha256: sha256(m.up) })),
      schema: schema.map((r) => ({ ...r, sql: flat(r.sql) })),
    };
  } finally {
    db.close();
  }
}

describe('schema snapshot', () => {
  const homes: { cleanup(): void }[] = [];
  afterEach(() => homes.splice(0).forEach((h) => h.cleanup()));

  it('changes only through a new migration', () => {
    const home = tempHome();
    homes.push(home);
    const now = current(path.join(home.dir, 'memory.db'));
    if (process.env.UPDATE_SCHEMA_SNAPSHOT === '1') {
      writeFileSync(SNAPSHOT, JSON.stringify(now, null, 2) + '\n');
    }
    const recorded = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Snapshot;
    for (const m of recorded.migrations) {
      const same = now.migrations.find((n) => n.version === m.version);
      expect(same, `migration ${m.version} (${m.name}) was removed: stores that applied it exist`).toBeDefined();
      expect(same!.sha256, `migration ${m.version} (${m.name}) was edited: add a new migration instead`).toBe(m.sha256);
    }
    const added = now.migrations.filter((n) => !recorded.migrations.some((m) => m.version === n.version));
    expect(
      added.map((m) => m.version),
      'new migrations: record the snapshot (UPDATE_SCHEMA_SNAPSHOT=1 npx vitest run test/unit/schema-snapshot.test.ts)',
    ).toEqual([]);
    expect(now.schema, 'the schema differs from the one its migrations recorded').toEqual(recorded.schema);
  });
});
