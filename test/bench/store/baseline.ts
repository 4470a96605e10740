import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openWriter, writeTx } from '../../../src/main/store/db';

/**
 * The floor under the store's upserts, measured in the same run so that this machine's speed
 * (which moves by a third from one minute to the next) can be told apart from the store's own
 * cost: the same texts into a plain SQLite file opened with the store's pragmas, each as a row
 * with a unique public id, a per-scope dedup key looked up before the insert, one FTS5 row and
 * one evidence row, `batch` per transaction. The wall time, in ms.
 */
export function plainUpserts(dir: string, texts: (i: number) => string, count: number, batch: number): number {
  const db = openWriter(path.join(dir, `plain-${randomUUID()}.db`));
  db.exec(`
    CREATE TABLE plain_facts (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      scope_id INTEGER NOT NULL,
      text TEXT NOT NULL,
      seen_at INTEGER NOT NULL,
      UNIQUE (scope_id, text)
    );
    CREATE TABLE plain_evidence (
      fact_seq INTEGER NOT NULL,
      session INTEGER NOT NULL,
      seen_at INTEGER NOT NULL,
      PRIMARY KEY (fact_seq, session)
    ) WITHOUT ROWID;
    CREATE VIRTUAL TABLE plain_fts USING fts5(text, content='');
  `);
  const find = db.prepare('SELECT seq FROM plain_facts WHERE scope_id = ? AND text = ?');
  const insert = db.prepare('INSERT INTO plain_facts (id, scope_id, text, seen_at) VALUES (?, ?, ?, ?)');
  const index = db.prepare('INSERT INTO plain_fts (rowid, text) VALUES (?, ?)');
  const evidence = db.prepare('INSERT INTO plain_evidence (fact_seq, session, seen_at) VALUES (?, ?, ?)');
  const t0 = performance.now();
  for (let start = 0; start < count; start += batch) {
    writeTx(db, () => {
      for (let i = start; i < Math.min(count, start + batch); i++) {
        const text = texts(i);
        const scope = i % 10;
        if (find.get(scope, text)) continue;
        const seq = Number(insert.run(randomUUID(), scope, text, i).lastInsertRowid);
        index.run(seq, text);
        evidence.run(seq, i % 100, i);
      }
    });
  }
  const ms = performance.now() - t0;
  db.close();
  return ms;
}
