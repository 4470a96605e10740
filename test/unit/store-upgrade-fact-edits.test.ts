import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../src/main/store/migrate';
import { migrations } from '../../src/main/store/migrations';
import { openWriter, writeTx } from '../../src/main/store/db';
import { getFact } from '../../src/main/store/facts';
import { writeOldFact } from '../helpers/old-store';
import { editFact, factHistory, setRecallMode } from '../../src/main/store/fact-edits';
import { tempHome } from '../helpers/home';

const S1 = '01900000-0000-7000-8000-000000000001';

/**
 * A store written before facts could be edited (schema 50) opens on this version: every fact
 * reads as normal recall with no history, and can be edited, pinned and paused at once.
 */
describe('upgrading a store to fact edits (migrations 80, 81)', () => {
  const homes: { cleanup(): void }[] = [];
  afterEach(() => homes.splice(0).forEach((h) => h.cleanup()));

  it('keeps every fact, adds normal recall and an empty history, and allows edits that re-index', () => {
    const h = tempHome();
    homes.push(h);
    const file = path.join(h.dir, 'memory.db');
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    old.pragma('foreign_keys = ON');
    migrate(
      old,
      migrations.filter((m) => m.version <= 50),
    );
    old
      .prepare(
        "INSERT INTO sessions (id, kind, project_id, created_at, updated_at) VALUES (?, 'top-level', 'p1', 1, 1)",
      )
      .run(S1);
    const ids = ['01900000-0000-7000-8000-00000000f001', '01900000-0000-7000-8000-00000000f002'];
    writeTx(old, () =>
      ['Use pnpm for installs', 'Deploys go through Terraform'].forEach((text, i) =>
        writeOldFact(old, {
          id: ids[i]!,
          text,
          kind: 'convention',
          scope: 'project',
          key: 'p1',
          sessionId: S1,
          now: 10,
        }),
      ),
    );
    // The old schema refused text edits outright.
    expect(() => old.prepare("UPDATE memory_facts SET text = 'x' WHERE id = ?").run(ids[0])).toThrow(/immutable/);
    old.close();

    const db = openWriter(file);
    expect(schemaVersion(db)).toBe(Math.max(...migrations.map((m) => m.version)));
    expect(db.prepare('SELECT recall, count(*) AS n FROM memory_facts GROUP BY recall').all()).toEqual([
      { recall: 'normal', n: 2 },
    ]);
    expect(factHistory(db, ids[0]!)).toEqual([]);
    expect(db.prepare('SELECT count(*) AS n FROM memory_extraction_runs').get()).toEqual({ n: 0 });
    const edited = writeTx(db, () =>
      editFact(db, ids[0]!, { text: 'Use pnpm 9 for installs' }, { actor: 'test', now: 20, merge: false }),
    );
    expect(edited.fact.text).toBe('Use pnpm 9 for installs');
    expect(factHistory(db, ids[0]!).map((e) => e.previous.text)).toEqual(['Use pnpm for installs']);
    const seq = (db.prepare('SELECT seq FROM memory_facts WHERE id = ?').get(ids[0]) as { seq: number }).seq;
    expect(db.prepare('SELECT rowid FROM memory_facts_fts WHERE memory_facts_fts MATCH \'"9_"*\'').all()).toEqual([
      { rowid: seq },
    ]);
    writeTx(db, () => setRecallMode(db, ids[1]!, 'paused', { actor: 'test', now: 30 }));
    expect(getFact(db, ids[1]!)?.recall).toBe('paused');
    db.exec("INSERT INTO memory_facts_fts(memory_facts_fts) VALUES('integrity-check')");
    // id and seq stay immutable.
    expect(() => db.prepare("UPDATE memory_fact_rows SET id = 'x' WHERE id = ?").run(ids[1])).toThrow(/immutable/);
    db.close();
  });
});
