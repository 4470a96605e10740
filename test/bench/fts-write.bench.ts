/**
 * Why 100k fact upserts miss their 5 s target (issue 2): FTS5 write costs measured on a bare
 * contentless_delete index like memory_facts_fts, 100k rows in 1,000-row transactions.
 *
 *  - direct vs trigger: the same insert issued by the caller, or by an AFTER INSERT trigger on a
 *    plain table (how migrations 20/23 maintain the recall index). A trigger makes the statement
 *    open a savepoint, and FTS5 flushes its pending terms to disk at every savepoint.
 *  - ascending vs descending rowids: FTS5 also flushes whenever a rowid is lower than the last
 *    one written in the transaction; the recall index's rowids count down.
 *
 * Prints figures; asserts nothing.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { writeTx } from '../../src/main/store/db';
import { tempHome } from '../helpers/home';

const ROWS = 100_000;
const BATCH = 1_000;
const TOP = 2 ** 50;

function measure(viaTrigger: boolean, descending: boolean): number {
  const home = tempHome('evoflux-fts-bench-');
  const db = new Database(path.join(home.dir, 'bench.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE VIRTUAL TABLE idx USING fts5(tag, text, content = '', contentless_delete = 1,
               tokenize = "unicode61 remove_diacritics 0");
             CREATE TABLE facts (id INTEGER PRIMARY KEY, tag TEXT NOT NULL, text TEXT NOT NULL);`);
    if (viaTrigger) {
      db.exec(`CREATE TRIGGER facts_index AFTER INSERT ON facts
               BEGIN INSERT INTO idx (rowid, tag, text) VALUES (new.id, new.tag, new.text); END;`);
    }
    const insertFact = db.prepare('INSERT INTO facts (id, tag, text) VALUES (?, ?, ?)');
    const insertIndex = db.prepare('INSERT INTO idx (rowid, tag, text) VALUES (?, ?, ?)');
    const started = performance.now();
    for (let start = 0; start < ROWS; start += BATCH) {
      writeTx(db, () => {
        for (let i = start; i < start + BATCH; i++) {
          const rowid = descending ? TOP - i : i + 1;
          const tag = `s${i % 110}`;
          const text = `Fact ${i}: the service on port ${3000 + (i % 500)} uses config variant ${i % 97}`;
          insertFact.run(rowid, tag, text);
          if (!viaTrigger) insertIndex.run(rowid, tag, text);
        }
      });
    }
    return performance.now() - started;
  } finally {
    db.close();
    home.cleanup();
  }
}

for (const viaTrigger of [false, true]) {
  for (const descending of [false, true]) {
    const ms = measure(viaTrigger, descending);
    console.log(
      `100k rows + FTS5 insert, ${viaTrigger ? 'by trigger' : 'direct    '}, ${descending ? 'descending' : 'ascending '} rowids: ${ms.toFixed(0)} ms`,
    );
  }
}
