import type { Db } from '../store/db';
import { turnsByRowid } from '../store/dialogue-queries';
import { normalizeToken, rawTokens } from '../text/tokenize';
import { anyOf, indexRows, taggedPrefixMatch, type TaggedIndex, type TermLookup } from './recall/fts';
import { beginningsOf } from './recall/widen-terms';

/** Query words shorter than this are never widened: a short prefix begins too many words. */
const MIN_PREFIX_LENGTH = 4;
/** The newest turns read for the words a prefix begins: enough to see which is said most. */
const TURNS_READ = 20;

/**
 * The dialogue's counterpart of recall/widen-terms.ts: each query word no turn the session may
 * read holds, mapped to the word it begins that those turns hold most often ("postgres" finds
 * "PostgreSQL"), else to the longest word that begins it and some turn holds ("deployment"
 * finds "deploy"). The index holds the turns' words as written, so one prefix query confined to the
 * session's tags finds them; the word is chosen from the newest matching turns' text, so only
 * what the session may read is ever looked at. Words with digits are taken as typed.
 */
export function widenDialogueTerms(
  db: Db,
  index: TaggedIndex,
  tags: readonly string[],
  query: readonly string[],
  rowsPerTerm: ReadonlyMap<string, number>,
  lookup: TermLookup,
): Map<string, string> | null {
  let widened: Map<string, string> | null = null;
  for (const term of query) {
    if (rowsPerTerm.get(term) !== 0 || term.length < MIN_PREFIX_LENGTH || /\d/.test(term)) continue;
    const match = taggedPrefixMatch(index, tags, term);
    if (match === null) return null;
    const textsMatching = (m: string) => turnsByRowid(db, indexRows(db, index, m, TURNS_READ)).map((t) => t.content);
    const word =
      commonestWordBeginning(term, textsMatching(match)) ?? longestBeginningSaid(term, lookup, textsMatching);
    if (word !== null && word !== term && !query.includes(word)) (widened ??= new Map()).set(term, word);
  }
  return widened;
}

/**
 * The longest word `term` may be cut back to (see widen-terms.ts) that the newest turns holding
 * any of them say: one lookup and one read, where asking for each word in turn would cost a
 * lookup (and an intersection with the session's tags) per word.
 */
function longestBeginningSaid(
  term: string,
  lookup: TermLookup,
  textsMatching: (match: string) => string[],
): string | null {
  const words = beginningsOf(term);
  const match = anyOf(words.map(lookup));
  if (match === null) return null;
  const said = new Set(textsMatching(match).flatMap((text) => rawTokens(text).map(normalizeToken)));
  return words.find((w) => said.has(w)) ?? null;
}

/** The folded word beginning with `prefix` (and longer) that the texts hold most often. */
function commonestWordBeginning(prefix: string, texts: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const text of texts) {
    for (const raw of rawTokens(text)) {
      if (raw.length > prefix.length && raw.startsWith(prefix)) counts.set(raw, (counts.get(raw) ?? 0) + 1);
    }
  }
  let best: string | null = null;
  let bestCount = 0;
  for (const [raw, n] of counts) {
    if (
      n > bestCount ||
      (n === bestCount && best !== null && (raw.length < best.length || (raw.length === best.length && raw < best)))
    ) {
      best = raw;
      bestCount = n;
    }
  }
  return best === null ? null : normalizeToken(best);
}
