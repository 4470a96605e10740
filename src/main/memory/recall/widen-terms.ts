import type { Db } from '../../store/db';
import { findsStandingFact, wordsStartingWith } from '../../store/fact-vocabulary';
import type { TermLookup } from './fts';

/** Query words shorter than this are never widened: a short prefix begins too many words. */
const MIN_PREFIX_LENGTH = 4;

/** Words tried per query word, commonest first, until one is held by a standing fact. */
const WORDS_TRIED = 3;

/**
 * For an explicit search: the query words no visible fact holds, each mapped to the word it
 * begins that the most visible facts hold ("postgres" finds "PostgreSQL", "deploy" finds
 * "deployment", "auth" finds "authentication"). A word some fact holds is never widened, so a search whose words all match
 * is unchanged (and costs nothing more); words with digits (versions, ports, ids) are taken as
 * typed.
 */
export function widenUnmatched(
  db: Db,
  query: readonly string[],
  rowsPerTerm: ReadonlyMap<string, number>,
  scopeIds: readonly number[],
  lookup: TermLookup,
): Map<string, string> | null {
  let widened: Map<string, string> | null = null;
  for (const term of query) {
    if (rowsPerTerm.get(term) !== 0 || term.length < MIN_PREFIX_LENGTH || /\d/.test(term)) continue;
    const best = wordsStartingWith(db, term, scopeIds)
      .slice(0, WORDS_TRIED)
      .find(({ word }) => {
        const match = lookup(word);
        return match !== null && findsStandingFact(db, match);
      });
    if (best) (widened ??= new Map()).set(term, best.word);
  }
  return widened;
}

/** The terms with each widened word in place of the one it replaces, each once. */
export const withWidened = (terms: readonly string[], widened: ReadonlyMap<string, string>): string[] => [
  ...new Set(terms.map((t) => widened.get(t) ?? t)),
];
