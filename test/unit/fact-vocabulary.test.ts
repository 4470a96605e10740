import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openReader, openWriter, writeTx, type Db } from '../../src/main/store/db';
import { wordsStartingWith } from '../../src/main/store/fact-vocabulary';
import { factIndexTerms } from '../../src/main/text/fact-index';
import { tempHome } from '../helpers/home';

/** The fact index's term list, read for the words a prefix begins (see memory/recall/widen-terms.ts). */
describe('the fact vocabulary', () => {
  let home: ReturnType<typeof tempHome> | null = null;
  const open: Db[] = [];
  afterEach(() => {
    for (const db of open.splice(0)) db.close();
    home?.cleanup();
    home = null;
  });
  const indexed = (db: Db, rows: [number, number, string][]) => {
    const insert = db.prepare('INSERT INTO memory_facts_fts (rowid, terms) VALUES (?, ?)');
    writeTx(db, () => rows.forEach(([seq, scope, text]) => insert.run(seq, factIndexTerms(scope, text))));
  };

  it('gives the words of the scopes asked for, most facts first, never the prefix itself', () => {
    home = tempHome();
    const file = path.join(home.dir, 'memory.db');
    const writer = openWriter(file);
    open.push(writer);
    indexed(writer, [
      [1, 1, 'PostgreSQL replicas'],
      [2, 1, 'PostgreSQL backups'],
      [3, 1, 'Postgis extension and postgres'],
      [4, 2, 'Postgresx shards'],
      [5, 2, 'Postgresx replicas'],
      [6, 2, 'Postgresx backups'],
    ]);
    const reader = openReader(file);
    open.push(reader);
    for (const db of [writer, reader]) {
      expect(wordsStartingWith(db, 'postg', [1])).toEqual([
        { word: 'postgresql', facts: 2 },
        { word: 'postgi', facts: 1 }, // folded as the index holds it ("postgis" reads as a plural)
        { word: 'postgre', facts: 1 },
      ]);
      expect(wordsStartingWith(db, 'postgre', [1, 2]).map((w) => w.word)).toEqual(['postgresx', 'postgresql']);
      expect(wordsStartingWith(db, 'kube', [1, 2])).toEqual([]);
    }
  });

  it('still answers on the writer after a write transaction that first created it rolled back', () => {
    home = tempHome();
    const writer = openWriter(path.join(home.dir, 'memory.db'));
    open.push(writer);
    indexed(writer, [[1, 1, 'PostgreSQL replicas']]);
    expect(() =>
      writeTx(writer, () => {
        expect(wordsStartingWith(writer, 'postg', [1])).toHaveLength(1);
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(wordsStartingWith(writer, 'postg', [1])).toEqual([{ word: 'postgresql', facts: 1 }]);
  });
});
