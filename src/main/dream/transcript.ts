import type { Db } from '../store/db';
import { dreamVisibleMessages } from '../store/dream-log';
import { redactSecrets } from '../memory/secrets';

export const MESSAGE_CHAR_CAP = 4000;
const TRUNCATED = '\n[... truncated ...]';
const ELIDED = '### [... middle messages elided to fit context window ...]\n';

export interface Transcript {
  text: string;
  /** How many visible messages the session has, and how many made it into the text. */
  messageCount: number;
  includedCount: number;
  /** created_at of the newest message put into the text: the session's new watermark. */
  watermark: number | null;
  firstUserLine: string | null;
}

/**
 * The bounded Dream input for one session, with secrets redacted: visible messages in time order, each capped at 4000
 * characters; when the whole exceeds maxChars, middle messages go first (oldest first) while
 * the first and the last are always kept, behind one elision marker. Linear in the messages.
 */
export function buildTranscript(db: Db, sessionId: string, maxChars: number): Transcript {
  const rows = dreamVisibleMessages(db, sessionId);
  // Secrets are redacted before a message is cut, so a cut can never leave half of one unrecognised.
  for (const r of rows) r.content = redactSecrets(r.content).text;
  const blocks = rows.map((r) => {
    const body = r.content.length > MESSAGE_CHAR_CAP ? r.content.slice(0, MESSAGE_CHAR_CAP) + TRUNCATED : r.content;
    return `### ${r.is_summary ? 'PRIOR SUMMARY' : r.role.toUpperCase()}\n${body}\n`;
  });
  const firstUser = rows.find((r) => r.role === 'user' && r.content.trim());
  const firstUserLine = firstUser ? firstUser.content.trim().split('\n')[0]!.slice(0, 200) : null;
  if (rows.length === 0) {
    return { text: '(empty session)', messageCount: 0, includedCount: 0, watermark: null, firstUserLine };
  }
  const total = blocks.reduce((n, b) => n + b.length, 0);
  const watermark = rows[rows.length - 1]!.created_at;
  if (total <= maxChars || blocks.length <= 2) {
    return { text: blocks.join(''), messageCount: rows.length, includedCount: rows.length, watermark, firstUserLine };
  }
  let budget = maxChars - blocks[0]!.length - blocks[blocks.length - 1]!.length - ELIDED.length;
  let from = blocks.length - 1;
  while (from - 1 > 0 && blocks[from - 1]!.length <= budget) {
    budget -= blocks[from - 1]!.length;
    from--;
  }
  const kept = [blocks[0]!, ...(from > 1 ? [ELIDED] : []), ...blocks.slice(from)];
  return {
    text: kept.join(''),
    messageCount: rows.length,
    includedCount: 1 + (blocks.length - from),
    watermark,
    firstUserLine,
  };
}
