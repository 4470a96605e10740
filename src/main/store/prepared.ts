import type { Statement } from 'better-sqlite3';
import type { Db } from './db';

type AnyStatement = Statement<any[]>;
const statementCache = new WeakMap<Db, Map<string, AnyStatement>>();

/** A statement prepared once per connection: recall runs the same few shapes thousands of times. */
export function prepared(db: Db, sql: string): AnyStatement {
  let m = statementCache.get(db);
  if (!m) {
    m = new Map();
    statementCache.set(db, m);
  }
  let s = m.get(sql);
  if (!s) {
    s = db.prepare(sql) as AnyStatement;
    m.set(sql, s);
  }
  return s;
}

const rawCache = new WeakMap<Db, Map<string, AnyStatement>>();

/**
 * `prepared(db, sql)` in raw mode (rows as arrays), also compiled once per connection: asking a
 * shared cached statement for `.raw()` compiles a fresh one every time (see db.ts). Arrays skip
 * building an object per row, which is most of the cost of reading a few hundred candidate rows.
 */
export function preparedRaw(db: Db, sql: string): AnyStatement {
  let m = rawCache.get(db);
  if (!m) rawCache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = prepared(db, sql).raw(true) as AnyStatement));
  return s;
}
