import type { Db } from './db';
import type { MessageRow } from './messages';

/**
 * The reads and the one write of a session's provider window (memory/working-memory): the
 * current compaction summary, the rows not compacted away, and compaction's flagging.
 */
export type WindowRow = MessageRow & { model_context: string | null };

/** The newest summary not itself folded into a later one. */
export function currentSummaryRow(db: Db, sessionId: string): WindowRow | undefined {
  return db
    .prepare(
      `SELECT * FROM session_messages WHERE session_id = ? AND is_summary = 1 AND compacted = 0
       ORDER BY seq DESC LIMIT 1`,
    )
    .get(sessionId) as WindowRow | undefined;
}

/** Rows in the window's range: neither compacted nor a summary. */
export function countWindowRows(db: Db, sessionId: string): number {
  return (
    db
      .prepare('SELECT count(*) AS n FROM session_messages WHERE session_id = ? AND compacted = 0 AND is_summary = 0')
      .get(sessionId) as { n: number }
  ).n;
}

export function newestWindowRows(db: Db, sessionId: string, limit: number): WindowRow[] {
  return db
    .prepare(
      `SELECT * FROM session_messages WHERE session_id = ? AND compacted = 0 AND is_summary = 0
       ORDER BY seq DESC LIMIT ?`,
    )
    .all(sessionId, limit) as WindowRow[];
}

/** Every row not compacted (summaries included), in order. */
export function uncompactedRows(db: Db, sessionId: string): WindowRow[] {
  return db
    .prepare('SELECT * FROM session_messages WHERE session_id = ? AND compacted = 0 ORDER BY seq')
    .all(sessionId) as WindowRow[];
}

/**
 * Flags the rows before `cut`, and the current summary, compacted; only rows still uncompacted
 * are flagged, so a concurrent compaction cannot double-count. Returns how many were flagged.
 */
export function flagCompacted(db: Db, sessionId: string, cut: number): number {
  return db
    .prepare(
      'UPDATE session_messages SET compacted = 1 WHERE session_id = ? AND (seq < ? OR is_summary = 1) AND compacted = 0',
    )
    .run(sessionId, cut).changes;
}
