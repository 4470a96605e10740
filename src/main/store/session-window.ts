import type { Db } from './db';
import type { MessageRow } from './messages';
import { jsonRows } from './prepared';

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

type WindowTuple = [
  string,
  string,
  number,
  MessageRow['role'],
  string,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  string | null,
  string | null,
];

/**
 * The newest `limit` rows of the window's range, newest first. Read as JSON arrays and built here:
 * every turn reads up to 200 of them, and the driver's object per row was most of a turn's time.
 */
export function newestWindowRows(db: Db, sessionId: string, limit: number): WindowRow[] {
  const columns = `id, session_id, seq, role, content, hidden, side_chat_context, tool_call_round,
       system_generated, is_summary, compacted, created_at, recall_degraded, model_context`;
  const rows = jsonRows<WindowTuple>(
    db,
    columns,
    `FROM (SELECT ${columns} FROM session_messages
       WHERE session_id = ? AND compacted = 0 AND is_summary = 0 ORDER BY seq DESC LIMIT ?)`,
    sessionId,
    limit,
  ).sort((a, b) => b[2] - a[2]);
  return rows.map((r) => ({
    id: r[0],
    session_id: r[1],
    seq: r[2],
    role: r[3],
    content: r[4],
    hidden: r[5],
    side_chat_context: r[6],
    tool_call_round: r[7],
    system_generated: r[8],
    is_summary: r[9],
    compacted: r[10],
    created_at: r[11],
    recall_degraded: r[12],
    model_context: r[13],
  }));
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
