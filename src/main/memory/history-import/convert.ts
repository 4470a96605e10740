import { createHash } from 'node:crypto';

/** A conversation that cannot be imported; the caller adds the file and the position. */
export class ConversationRejected extends Error {}

export const reject = (reason: string): never => {
  throw new ConversationRejected(reason);
};

/** A stable key for something the export gives no id: the same content always hashes the same. */
export const stableKey = (parts: unknown[]): string =>
  'h:' + createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);

/** Epoch seconds (ChatGPT writes floats) to ms; null for anything that is not a usable time. */
export function secondsToMs(v: unknown): number | null {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return null;
  return Math.round(v * 1000);
}

/** ISO-8601 text (Claude) or epoch ms (JSONL) to ms; null when it is neither. */
export function timeToMs(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? Math.round(v) : null;
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(v)) return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}

/** Titles are shown in lists: one line, at most 500 characters (as sessions.create takes them). */
export function cleanTitle(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const title = v.replace(/\s+/g, ' ').trim();
  return title ? title.slice(0, 500) : null;
}
