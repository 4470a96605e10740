import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWriter, type Db } from '../../src/main/store/db';
import { jsonRows, preparedPluck } from '../../src/main/store/prepared';
import { tempHome } from '../helpers/home';

// Text the JSON hand-over must carry unchanged: quotes, backslashes, control characters, NUL,
// line and paragraph separators, an emoji (two UTF-16 units), CJK, combining marks, RTL.
const PIECES = [
  'a',
  'Z',
  ' ',
  '"',
  "'",
  '\\',
  '/',
  '\u0000',
  '\u0001',
  '\u001f',
  '\t',
  '\n',
  '\r',
  '\b',
  '\f',
  '\u007f',
  '\u2028',
  '\u2029',
  '😀',
  '中文',
  'é',
  'e\u0301',
  'ß',
  'שלום',
  '{"k":[1,2]}',
  '\\u0041',
];

/** Deterministic strings of 0-11 pieces. */
function tricky(count: number): string[] {
  let state = 7;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: count }, () =>
    Array.from({ length: next() % 12 }, () => PIECES[next() % PIECES.length]!).join(''),
  );
}

describe('jsonRows', () => {
  let home: ReturnType<typeof tempHome> | null = null;
  let db: Db | null = null;
  afterEach(() => {
    db?.close();
    home?.cleanup();
    db = null;
    home = null;
  });

  function table(): Db {
    home = tempHome();
    db = openWriter(path.join(home.dir, 'memory.db'));
    db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, n INTEGER, s TEXT)');
    return db;
  }

  it('returns the rows the driver returns, text and integers unchanged', () => {
    const t = table();
    const texts = tricky(3000);
    const insert = t.prepare('INSERT INTO t (k, n, s) VALUES (?, ?, ?)');
    const numbers = [0, -1, 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 - 1, -(2 ** 53) + 1];
    t.transaction(() => texts.forEach((s, i) => insert.run(i, numbers[i % numbers.length], i % 17 === 0 ? null : s)))();

    const driver = t.prepare('SELECT k, n, s FROM t WHERE k >= ? ORDER BY k').raw().all(0);
    const handed = jsonRows<[number, number, string | null]>(t, 'k, n, s', 'FROM t WHERE k >= ?', 0);
    handed.sort((a, b) => a[0] - b[0]);
    expect(handed).toEqual(driver);
    expect(handed).toHaveLength(3000);
  });

  it('returns no rows as an empty list', () => {
    const t = table();
    expect(jsonRows(t, 'k, s', 'FROM t WHERE k = ?', 42)).toEqual([]);
  });

  it('compiles each query once per connection', () => {
    const t = table();
    const sql = 'SELECT k FROM t';
    expect(preparedPluck(t, sql)).toBe(preparedPluck(t, sql));
    t.exec("INSERT INTO t (k, n, s) VALUES (1, 2, 'x')");
    expect(preparedPluck(t, sql).all()).toEqual([1]);
  });
});
