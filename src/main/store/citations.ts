import type { Db } from './db';
import { preparedRaw } from './prepared';

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

/** An evidence row as `citedEvidence` reads it: fact seq, session id, message id, created at. */
type EvidenceRow = [number, string, string | null, number];

/**
 * The evidence row each fact is cited with, for many facts in one statement: one of `preferred`
 * sessions' rows when the fact has some, otherwise its oldest (ties on the session id). A fact
 * with no evidence has no row. Every evidence row of the facts is read and the choice made here:
 * an ORDER BY per fact inside the statement (a temporary B-tree each time) cost twice as much,
 * and a window over the rows five times as much.
 */
export function citedEvidence(
  db: Db,
  factSeqs: readonly number[],
  preferred: readonly string[],
): (CitedRow & { factSeq: number })[] {
  const rows = preparedRaw(
    db,
    `SELECT e.fact_seq, s.session_id, e.message_id, e.created_at FROM memory_fact_evidence_rows e
       JOIN memory_evidence_sessions s ON s.ref = e.session_ref
     WHERE e.fact_seq IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(factSeqs)) as EvidenceRow[];
  const best = new Map<number, { row: EvidenceRow; rank: number }>();
  for (const row of rows) {
    const rank = preferred.includes(row[1]) ? 0 : 1;
    const held = best.get(row[0]);
    const better =
      !held ||
      rank < held.rank ||
      (rank === held.rank && (row[3] < held.row[3] || (row[3] === held.row[3] && row[1] < held.row[1])));
    if (better) best.set(row[0], { row, rank });
  }
  return [...best.values()].map(({ row }) => ({ factSeq: row[0], sessionId: row[1], messageId: row[2] }));
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
