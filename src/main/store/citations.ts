import type { Db } from './db';

/** The citation key (migration 053), read once per connection. */
const keys = new WeakMap<Db, Buffer>();

export function citationKey(db: Db): Buffer {
  let key = keys.get(db);
  if (!key) {
    key = (db.prepare('SELECT key FROM citation_key WHERE id = 1').get() as { key: Buffer }).key;
    keys.set(db, key);
  }
  return key;
}

export interface CitedRow {
  sessionId: string;
  messageId: string | null;
}

/** Every evidence row of one fact: what an `e` ref can point at. */
export const evidenceOfFactSeq = (db: Db, factSeq: number): CitedRow[] =>
  db
    .prepare('SELECT session_id AS sessionId, message_id AS messageId FROM memory_fact_evidence WHERE fact_seq = ?')
    .all(factSeq) as CitedRow[];

/** The message at one rowid: what an `m` ref can point at. */
export const messageAtRowid = (db: Db, rowid: number): CitedRow | undefined =>
  db.prepare('SELECT session_id AS sessionId, id AS messageId FROM session_messages WHERE rowid = ?').get(rowid) as
    CitedRow | undefined;

export interface CitedMessage {
  seq: number;
  excerpt: string;
}

export const citedMessage = (db: Db, messageId: string): CitedMessage | undefined =>
  db.prepare('SELECT seq, substr(content, 1, 280) AS excerpt FROM session_messages WHERE id = ?').get(messageId) as
    CitedMessage | undefined;
