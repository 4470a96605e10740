import { normalizeToken, rawTokens } from './tokenize';

/**
 * The fact index's tokens (migration 102). Each fact is indexed as its distinct folded words,
 * each joined to the integer id of the fact's scope (memory_scopes.id, in base 36): `deploy_1f` is
 * "deploy" (or deploys, deploying, deployed) in scope 51. So one scope's facts holding a word
 * are one short posting list, and a recall lookup is an OR of one exact token per visible scope:
 * no intersection with a scope tag's posting list (which holds every fact of the scope and made a
 * lookup cost several times more), and no list of surface forms per word (the words are folded
 * before they are indexed). The index is contentless with detail=none: it only ever answers which
 * rows hold a token, newest first; phrases and term counts are computed from the facts' text.
 *
 * `_` is declared a token character of the index's tokenizer, and the words never hold one
 * (tokens are runs of letters and digits), so a token names exactly one (word, scope) pair and
 * `deploy_*` asks for a word in every scope at once (the fact browser does).
 */
export const FACT_INDEX_TOKENIZER = `unicode61 remove_diacritics 0 tokenchars '_'`;

/** The index token of a folded word in a scope. */
export const factToken = (scopeId: number, term: string): string => `${term}_${scopeId.toString(36)}`;

/**
 * Words past which a fact's distinct words are kept in a set: below it, scanning the few kept so
 * far costs less than hashing each word (most facts hold a dozen or two).
 */
const SCAN_LIMIT = 32;

/** The index row of a fact: its distinct folded words in its scope, space-separated. */
export function factIndexTerms(scopeId: number, text: string): string {
  const terms: string[] = [];
  let seen: Set<string> | null = null;
  for (const raw of rawTokens(text)) {
    const term = normalizeToken(raw);
    if (seen ? seen.has(term) : terms.includes(term)) continue;
    terms.push(term);
    if (seen) seen.add(term);
    else if (terms.length === SCAN_LIMIT) seen = new Set(terms);
  }
  if (terms.length === 0) return '';
  const suffix = `_${scopeId.toString(36)}`;
  return terms.join(`${suffix} `) + suffix;
}

/** An FTS5 string literal. */
export const quoteToken = (token: string): string => `"${token.replace(/"/g, '""')}"`;
