import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWriter, openReader } from '../../src/main/store/db';
import { migrate, schemaVersion } from '../../src/main/store/migrate';
import { migrations } from '../../src/main/store/migrations';
import { tempHome } from '../helpers/home';

describe('migrations', () => {
  const homes: { cleanup(): void }[] = [];
  afterEach(() => homes.splice(0).forEach((h) => h.cleanup()));
  const file = () => {
    const h = tempHome();
    homes.push(h);
    return path.join(h.dir, 'memory.db');
  };

  it('migrates an empty database to the latest version and records each migration once', () => {
    const f = file();
    const db = openWriter(f);
    const latest = Math.max(...migrations.map((m) => m.version));
    expect(schemaVersion(db)).toBe(latest);
    const rows = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[];
    expect(rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version).sort((a, b) => a - b));
    expect(migrate(db)).toEqual([]);
    db.close();
    const again = openWriter(f);
    expect(again.prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({ n: migrations.length });
    again.close();
  });

  it('sets WAL, foreign keys, busy_timeout and synchronous on every open', () => {
    const f = file();
    const w = openWriter(f);
    expect(w.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(w.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(w.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(w.pragma('synchronous', { simple: true })).toBe(1);
    expect(w.pragma('secure_delete', { simple: true })).toBe(1);
    const r = openReader(f);
    expect(r.pragma('synchronous', { simple: true })).toBe(1);
    expect(r.pragma('query_only', { simple: true })).toBe(1);
    expect(() => r.prepare("INSERT INTO dream_log VALUES ('x', 1, NULL, 1)").run()).toThrow();
    r.close();
    w.close();
  });

  it('refuses a database written by a newer app without touching it', () => {
    const f = file();
    openWriter(f).close();
    const raw = new Database(f);
    raw.prepare('INSERT INTO schema_migrations VALUES (999, ?, ?)').run('future', 1);
    raw.close();
    expect(() => openWriter(f)).toThrow(/schema version 999.*newer version/);
    const check = new Database(f);
    expect(check.prepare('SELECT max(version) AS v FROM schema_migrations').get()).toEqual({ v: 999 });
    check.close();
  });

  it('rolls back a failing migration entirely', () => {
    const f = file();
    const db = new Database(f);
    const bad = [
      ...migrations,
      { version: 9999, name: 'broken', up: 'CREATE TABLE half_done (x INTEGER); SELECT * FROM no_such_table;' },
    ];
    expect(() => migrate(db, bad)).toThrow(/no_such_table/);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half_done'").get()).toBeUndefined();
    expect(schemaVersion(db)).toBe(Math.max(...migrations.map((m) => m.version)));
    db.close();
  });

  it('refuses a new migration numbered below one already applied, and changes nothing', () => {
    const f = file();
    const db = new Database(f);
    migrate(db);
    const newest = schemaVersion(db);
    const before = db.prepare('SELECT count(*) AS n FROM sqlite_master').get();
    // A free number below the newest, as a migration written on an older branch would have.
    const taken = new Set(migrations.map((m) => m.version));
    let gap = newest - 1;
    while (taken.has(gap)) gap--;
    const late = [...migrations, { version: gap, name: 'added-late', up: 'CREATE TABLE added_late (x INTEGER);' }];
    expect(() => migrate(db, late)).toThrow(
      new RegExp(`migration ${gap} \\(added-late\\) is numbered below ${newest}.*above every applied one`),
    );
    expect(db.prepare('SELECT count(*) AS n FROM sqlite_master').get()).toEqual(before);
    // A fresh store has nothing applied yet, so the same list runs in order there.
    const fresh = new Database(file());
    expect(migrate(fresh, late)).toContain(gap);
    fresh.close();
    db.close();
  });
});
