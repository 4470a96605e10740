import type { Db } from '../../store/db';
import type { TranscriptEntry, TranscriptWindow } from './types';

export interface WindowBounds {
  maxMessages: number;
  maxInputChars: number;
}

/** Per-line caps: one long message cannot crowd out the rest of the window. */
export const USER_LINE_CHARS = 800;
export const ASSISTANT_LINE_CHARS = 1000;

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

interface Row {
  id: string;
  seq: number;
  role: 'user' | 'assistant' | 'system';
  content: string;
  is_summary: number;
  created_at: number;
}

const LABEL: Record<TranscriptEntry['role'], string> = {
  user: 'User',
  assistant: 'Assistant',
  summary: 'Prior summary',
};

export const renderEntry = (e: TranscriptEntry): string => `${LABEL[e.role]}: ${e.text}`;

function toEntry(r: Row): TranscriptEntry {
  const role: TranscriptEntry['role'] = r.is_summary ? 'summary' : r.role === 'assistant' ? 'assistant' : 'user';
  const cap = role === 'assistant' ? ASSISTANT_LINE_CHARS : USER_LINE_CHARS;
  const text = r.content.trim().replace(/\n{3,}/g, '\n\n');
  const cut = text.length > cap ? text.slice(0, cap) + '…' : text;
  return { messageId: r.id, seq: r.seq, role, text: cut, createdAt: r.created_at };
}

/**
 * The messages after `afterSeq`, oldest first, until either bound is reached (always at least
 * one). When the window holds everything, its cursor moves past trailing skipped rows too.
 */
export function loadWindow(db: Db, sessionId: string, afterSeq: number, bounds: WindowBounds): TranscriptWindow {
  const rows = db
    .prepare(
      `SELECT id, seq, role, content, is_summary, created_at FROM session_messages
       WHERE session_id = ? AND seq > ? AND ${EXTRACTION_INPUT_SQL}
       ORDER BY seq LIMIT ?`,
    )
    .all(sessionId, afterSeq, bounds.maxMessages + 1) as Row[];
  const entries: TranscriptEntry[] = [];
  let chars = 0;
  let truncated = rows.length > bounds.maxMessages;
  for (const row of rows.slice(0, bounds.maxMessages)) {
    const entry = toEntry(row);
    const cost = renderEntry(entry).length + 2;
    if (entries.length > 0 && chars + cost > bounds.maxInputChars) {
      truncated = true;
      break;
    }
    entries.push(entry);
    chars += cost;
  }
  const lastSeq = truncated
    ? entries[entries.length - 1]!.seq
    : (
        db
          .prepare('SELECT COALESCE(MAX(seq), ?) AS seq FROM session_messages WHERE session_id = ?')
          .get(afterSeq, sessionId) as { seq: number }
      ).seq;
  return {
    sessionId,
    entries,
    text: entries.map(renderEntry).join('\n\n'),
    lastSeq: Math.max(lastSeq, afterSeq),
    truncated,
  };
}

/** Eligible messages after the cursor: the backlog shown by status. */
export function countPendingInput(db: Db, sessionId: string, afterSeq: number): number {
  return (
    db
      .prepare(
        `SELECT count(*) AS n FROM session_messages WHERE session_id = ? AND seq > ? AND ${EXTRACTION_INPUT_SQL}`,
      )
      .get(sessionId, afterSeq) as { n: number }
  ).n;
}
