import type { Scope } from '../../shared/domain';
import { redactSecrets } from './secrets';
import { collapseSpace } from '../../shared/whitespace';

/** What memory_search returns, and how each source hands its candidates to the merge (see search.ts). */
export interface SearchHit {
  source: 'fact' | 'wiki' | 'dialogue';
  ref: string;
  title: string;
  snippet: string;
  score: number;
  citation: { sessionId?: string; messageId?: string; ref?: string; scope?: Scope; path?: string };
  /** Dialogue hits: when the message was written (ISO-8601, UTC), for "when" questions. */
  date?: string;
}

/**
 * A hit as ranked: its score and ref (the sort keys) and how to build the whole hit. Every source
 * ranks all its candidates, but only the few returned are built: a dialogue hit's citation ref
 * is an HMAC and a snippet redacts secrets from the whole text.
 */
export interface RankedHit {
  score: number;
  ref: string;
  build(): SearchHit;
}

const EXCERPT_CHARS = 500;
const EXCERPT_LEAD = 120;

/**
 * The whole text when short; else a 500-character window from 120 before the first query hit.
 * Secrets are replaced by `[redacted <kind>]` before the window is cut, so no part of one shows.
 */
export function excerpt(text: string, query: readonly string[]): string {
  const flat = redactSecrets(collapseSpace(text)).text;
  if (flat.length <= EXCERPT_CHARS) return flat;
  const lower = flat.toLowerCase();
  let first = -1;
  for (const q of query) {
    const at = lower.indexOf(q);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  const start = Math.max(0, first < 0 ? 0 : first - EXCERPT_LEAD);
  const end = Math.min(flat.length, start + EXCERPT_CHARS);
  return (start > 0 ? '…' : '') + flat.slice(start, end) + (end < flat.length ? '…' : '');
}
