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

type Mode = 'raw' | 'pluck';
const modeCaches: Record<Mode, WeakMap<Db, Map<string, AnyStatement>>> = { raw: new WeakMap(), pluck: new WeakMap() };

/**
 * `prepared(db, sql)` in a mode, also compiled once per connection: asking a shared cached
 * statement for `.raw()` or `.pluck()` compiles a fresh one every time (see db.ts).
 */
function preparedIn(mode: Mode, db: Db, sql: string): AnyStatement {
  const cache = modeCaches[mode];
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = prepared(db, sql)[mode](true) as AnyStatement));
  return s;
}

/**
 * Rows as arrays: they skip building an object per row (for many rows, `jsonRows` below costs
 * less still).
 */
export const preparedRaw = (db: Db, sql: string): AnyStatement => preparedIn('raw', db, sql);

/** Each row's first column alone. */
export const preparedPluck = (db: Db, sql: string): AnyStatement => preparedIn('pluck', db, sql);

/**
 * The rows of `SELECT columns from` as arrays, handed over as one JSON text. The driver builds
 * every row it returns value by value through V8's API (~0.8 µs a row of a few columns, most of
 * the cost of reading a search's candidates); JSON.parse builds the same arrays from one string
 * for ~0.1 µs a row. Only for integer and text columns: JSON would round a REAL and cannot hold a
 * BLOB. The rows come in no promised order (an aggregate's input has none): callers that need one
 * sort them.
 */
export function jsonRows<T extends unknown[]>(db: Db, columns: string, from: string, ...params: unknown[]): T[] {
  const sql = `SELECT json_group_array(json_array(${columns})) ${from}`;
  return JSON.parse(preparedPluck(db, sql).get(...params) as string) as T[];
}
