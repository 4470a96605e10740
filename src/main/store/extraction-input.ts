import type { Db } from './db';

/**
 * Extraction input, in SQL so every exclusion applies before the limit: visible user and
 * assistant messages only. Never tool output, tool-call rounds, hidden rows (side-chat copies,
 * recall blocks, continuation directives), copied side-chat context or synthetic rows. A
 * compaction summary (however the compactor flags it) comes in as "Prior summary". Compacted rows are real messages that were
 * only taken out of the provider window, so ones the cursor has not reached are still read.
 */
export const EXTRACTION_INPUT_SQL = `side_chat_context = 0 AND length(trim(content)) > 0 AND (
    (role IN ('user', 'assistant') AND hidden = 0 AND system_generated = 0 AND tool_call_round = 0)
    OR is_summary = 1)`;

export interface ExtractionInputRow {
  id: string;
  seq: number;
  role: 'user' | 'assistant' | 'system';
  content: string;
  is_summary: number;
  created_at: number;
}

/** Extraction input after the cursor, oldest first, at most `limit` rows. */
export function extractionInputRows(db: Db, sessionId: string, afterSeq: number, limit: number): ExtractionInputRow[] {
  return db
    .prepare(
      `SELECT id, seq, role, content, is_summary, created_at FROM session_messages
       WHERE session_id = ? AND seq > ? AND ${EXTRACTION_INPUT_SQL}
       ORDER BY seq LIMIT ?`,
    )
    .all(sessionId, afterSeq, limit) as ExtractionInputRow[];
}

/** The session's newest message seq (any row), or `floor` when it has none. */
export function lastSeqOf(db: Db, sessionId: string, floor: number): number {
  return (
    db
      .prepare('SELECT COALESCE(MAX(seq), ?) AS seq FROM session_messages WHERE session_id = ?')
      .get(floor, sessionId) as {
      seq: number;
    }
  ).seq;
}

/** Extraction input rows after the cursor. */
export function countExtractionInput(db: Db, sessionId: string, afterSeq: number): number {
  return (
    db
      .prepare(
        `SELECT count(*) AS n FROM session_messages WHERE session_id = ? AND seq > ? AND ${EXTRACTION_INPUT_SQL}`,
      )
      .get(sessionId, afterSeq) as { n: number }
  ).n;
}
