import type { Db } from '../../store/db';
import { findsStandingFact, wordsStartingWith } from '../../store/fact-vocabulary';
import { anyOf, type TermLookup } from './fts';

/** Query words shorter than this are never widened: a short prefix begins too many words. */
const MIN_PREFIX_LENGTH = 4;

/** Words tried per query word, commonest first, until one is held by a standing fact. */
const WORDS_TRIED = 3;

/** A word cut back to one it begins keeps at least this share of its letters ("deployment", "deploy"). */
const SHORTEST_SHARE = 0.6;

/**
 * For an explicit search: the query words no visible fact holds, each mapped to the word it
 * begins that the most visible facts hold ("postgres" finds "PostgreSQL", "deploy" finds
 * "deployment", "auth" finds "authentication"), else to the longest word that begins it
 * ("deployment" finds "deploy", "replication" finds "replica"). A word some fact holds is never
 * widened, so a search whose words all match is unchanged (and costs nothing more); words with
 * digits (versions, ports, ids) are taken as typed.
 */
export function widenUnmatched(
  db: Db,
  query: readonly string[],
  rowsPerTerm: ReadonlyMap<string, number>,
  scopeIds: readonly number[],
  lookup: TermLookup,
): Map<string, string> | null {
  const held = (words: readonly string[]) => {
    const match = anyOf(words.map(lookup));
    return match !== null && findsStandingFact(db, match);
  };
  let widened: Map<string, string> | null = null;
  for (const term of query) {
    if (rowsPerTerm.get(term) !== 0 || term.length < MIN_PREFIX_LENGTH || /\d/.test(term)) continue;
    const longer = wordsStartingWith(db, term, scopeIds)
      .slice(0, WORDS_TRIED)
      .find(({ word }) => held([word]))?.word;
    const word = longer ?? longestHeldBeginning(term, held);
    if (word) (widened ??= new Map()).set(term, word);
  }
  return widened;
}

/**
 * The longest word that begins `term` and a visible fact holds (`held` answers for a list of words
 * at once), of at least four letters and SHORTEST_SHARE of the term's: a word typed with a suffix
 * the facts do not use.
 */
function longestHeldBeginning(term: string, held: (words: readonly string[]) => boolean): string | null {
  const words = beginningsOf(term);
  // One lookup of them all first: most words have no shorter word at all.
  if (words.length === 0 || !held(words)) return null;
  return words.find((word) => held([word])) ?? null;
}

/** The words `term` may be cut back to, longest first: four letters and SHORTEST_SHARE of it at least. */
function beginningsOf(term: string): string[] {
  const shortest = Math.max(MIN_PREFIX_LENGTH, Math.ceil(term.length * SHORTEST_SHARE));
  const words: string[] = [];
  for (let length = term.length - 1; length >= shortest; length--) words.push(term.slice(0, length));
  return words;
}

/** The terms with each widened word in place of the one it replaces, each once. */
export const withWidened = (terms: readonly string[], widened: ReadonlyMap<string, string>): string[] => [
  ...new Set(terms.map((t) => widened.get(t) ?? t)),
];

/** How much of its own weight a widened word keeps: a guess at a word counts less than the word. */
const WIDENED_WEIGHT = 0.5;

/**
 * Weighs each widened word at half its own weight, and at most half the lightest typed word that
 * found something: "plan billing", with "plan" widened to a rare "planetarium", still ranks the
 * billing facts first, as the person typed "billing" and only began some other word.
 */
export function discountWidened(
  weight: Map<string, number>,
  widenedWords: ReadonlySet<string>,
  found: (term: string) => boolean,
): void {
  if (widenedWords.size === 0) return;
  let lightestTyped = Infinity;
  for (const [term, w] of weight)
    if (!widenedWords.has(term) && found(term)) lightestTyped = Math.min(lightestTyped, w);
  for (const word of widenedWords) {
    const w = weight.get(word);
    if (w !== undefined) weight.set(word, WIDENED_WEIGHT * Math.min(w, lightestTyped));
  }
}

/** The words widening put in the query that were not typed themselves. */
export const widenedWordsOf = (typed: readonly string[], widened: ReadonlyMap<string, string> | null): Set<string> =>
  new Set([...(widened?.values() ?? [])].filter((w) => !typed.includes(w)));
