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
