import type { Db } from './db';
import type { MessageRole } from '../../shared/domain';
import type { MessageRecord } from '../../shared/schemas';

export interface MessageRow {
  id: string;
  session_id: string;
  seq: number;
  role: MessageRole;
  content: string;
  hidden: number;
  side_chat_context: number;
  tool_call_round: number;
  system_generated: number;
  is_summary: number;
  compacted: number;
  created_at: number;
  /** Why automatic recall failed for this user turn (migration 56); null for every other row. */
  recall_degraded?: string | null;
}

export const toMessage = (r: MessageRow): MessageRecord => ({
  id: r.id,
  sessionId: r.session_id,
  seq: r.seq,
  role: r.role,
  content: r.content,
  hidden: r.hidden === 1,
  sideChatContext: r.side_chat_context === 1,
  toolCallRound: r.tool_call_round === 1,
  systemGenerated: r.system_generated === 1,
  isSummary: r.is_summary === 1,
  compacted: r.compacted === 1,
  createdAt: r.created_at,
  ...(r.recall_degraded ? { recallDegraded: r.recall_degraded } : {}),
});

export type NewMessage = Pick<MessageRecord, 'id' | 'sessionId' | 'role' | 'content'> &
  Partial<Pick<MessageRecord, 'hidden' | 'sideChatContext' | 'toolCallRound' | 'systemGenerated' | 'isSummary'>>;

/** The session's newest message's seq and time, or undefined for an empty session. */
export function lastMessageOf(db: Db, sessionId: string): { seq: number; created_at: number } | undefined {
  return db
    .prepare('SELECT seq, created_at FROM session_messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1')
    .get(sessionId) as { seq: number; created_at: number } | undefined;
}

/**
 * Appends a message at the next seq. created_at is strictly increasing within a session (at
 * least one ms after the previous message) so watermarks compared by time never tie. `at` is
 * the message's time: now, or its real time when loaded from history.
 */
export function appendMessage(db: Db, m: NewMessage, at: number): MessageRecord {
  const last = lastMessageOf(db, m.sessionId);
  const row: MessageRow = {
    id: m.id,
    session_id: m.sessionId,
    seq: (last?.seq ?? 0) + 1,
    role: m.role,
    content: m.content,
    hidden: m.hidden ? 1 : 0,
    side_chat_context: m.sideChatContext ? 1 : 0,
    tool_call_round: m.toolCallRound ? 1 : 0,
    system_generated: m.systemGenerated ? 1 : 0,
    is_summary: m.isSummary ? 1 : 0,
    compacted: 0,
    created_at: Math.max(at, (last?.created_at ?? -Infinity) + 1),
  };
  db.prepare(
    `INSERT INTO session_messages (id, session_id, seq, role, content, hidden, side_chat_context, tool_call_round,
       system_generated, is_summary, compacted, created_at)
     VALUES (@id, @session_id, @seq, @role, @content, @hidden, @side_chat_context, @tool_call_round,
       @system_generated, @is_summary, @compacted, @created_at)`,
  ).run(row);
  db.prepare('UPDATE sessions SET updated_at = MAX(updated_at, ?) WHERE id = ?').run(row.created_at, m.sessionId);
  return toMessage(row);
}

export function getMessage(db: Db, id: string): MessageRecord | undefined {
  const row = db.prepare('SELECT * FROM session_messages WHERE id = ?').get(id) as MessageRow | undefined;
  return row && toMessage(row);
}

export interface MessageListFilter {
  sessionId: string;
  includeHidden: boolean;
  afterSeq?: number;
  limit: number;
}

export function listMessages(db: Db, f: MessageListFilter): MessageRecord[] {
  const rows = db
    .prepare(
      `SELECT * FROM session_messages
       WHERE session_id = @sessionId AND seq > @afterSeq ${f.includeHidden ? '' : 'AND hidden = 0'}
       ORDER BY seq LIMIT @limit`,
    )
    .all({ sessionId: f.sessionId, afterSeq: f.afterSeq ?? 0, limit: f.limit }) as MessageRow[];
  return rows.map(toMessage);
}

/**
 * A completed lead response: a visible assistant message that is not an intermediate tool-call
 * round and has content. Compacted rows still count, so compaction never resets
 * the extraction cadence.
 */
export const COMPLETED_RESPONSE_SQL = `role = 'assistant' AND tool_call_round = 0 AND hidden = 0
  AND side_chat_context = 0 AND system_generated = 0 AND is_summary = 0 AND length(trim(content)) > 0`;

export function countCompletedResponses(db: Db, sessionId: string): number {
  return (
    db
      .prepare(`SELECT count(*) AS n FROM session_messages WHERE session_id = ? AND ${COMPLETED_RESPONSE_SQL}`)
      .get(sessionId) as { n: number }
  ).n;
}

/** Why recall was degraded for this user message (shown with the turn). */
export function markRecallDegraded(db: Db, messageId: string, reason: string): void {
  db.prepare('UPDATE session_messages SET recall_degraded = ? WHERE id = ?').run(reason, messageId);
}

/** Names a persisted model-context row (a recall block) and the message it was built for. */
export function markModelContext(db: Db, messageId: string, context: string, builtFor: string): void {
  db.prepare('UPDATE session_messages SET model_context = ?, model_context_for = ? WHERE id = ?').run(
    context,
    builtFor,
    messageId,
  );
}
