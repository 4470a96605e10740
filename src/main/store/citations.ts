import type { Db } from './db';
import { prepared } from './prepared';

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

/**
 * The evidence row each fact is cited with, for many facts in one statement: one of `preferred`
 * sessions' rows when the fact has some, otherwise its oldest (ties on the session id). Each
 * fact's row is probed inside the statement, stopping at the first row of that order: a window
 * over every evidence row of the facts cost twice as much. A fact with no evidence has no row.
 */
export function citedEvidence(
  db: Db,
  factSeqs: readonly number[],
  preferred: readonly [string, string],
): (CitedRow & { factSeq: number })[] {
  return prepared(
    db,
    `SELECT b.fact_seq AS factSeq, s.session_id AS sessionId, e.message_id AS messageId FROM (
       SELECT t.value AS fact_seq, (
         SELECT e.session_ref FROM memory_fact_evidence_rows e
           JOIN memory_evidence_sessions s ON s.ref = e.session_ref
         WHERE e.fact_seq = t.value
         ORDER BY (s.session_id IN (?, ?)) DESC, e.created_at, s.session_id LIMIT 1) AS ref
       FROM json_each(?) t) b
     JOIN memory_fact_evidence_rows e ON e.fact_seq = b.fact_seq AND e.session_ref = b.ref
     JOIN memory_evidence_sessions s ON s.ref = b.ref`,
  ).all(preferred[0], preferred[1], JSON.stringify(factSeqs)) as (CitedRow & { factSeq: number })[];
}

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
