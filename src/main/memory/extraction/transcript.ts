import type { Db } from '../../store/db';
import {
  countExtractionInput,
  extractionInputRows,
  lastSeqOf,
  type ExtractionInputRow,
} from '../../store/extraction-input';
import type { TranscriptEntry, TranscriptWindow } from './types';

export interface WindowBounds {
  maxMessages: number;
  maxInputChars: number;
}

/** Per-line caps: one long message cannot crowd out the rest of the window. */
export const USER_LINE_CHARS = 800;
export const ASSISTANT_LINE_CHARS = 1000;

const LABEL: Record<TranscriptEntry['role'], string> = {
  user: 'User',
  assistant: 'Assistant',
  summary: 'Prior summary',
};

export const renderEntry = (e: TranscriptEntry): string => `${LABEL[e.role]}: ${e.text}`;

function toEntry(r: ExtractionInputRow): TranscriptEntry {
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
  const rows = extractionInputRows(db, sessionId, afterSeq, bounds.maxMessages + 1);
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
  const lastSeq = truncated ? entries[entries.length - 1]!.seq : lastSeqOf(db, sessionId, afterSeq);
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
  return countExtractionInput(db, sessionId, afterSeq);
}
