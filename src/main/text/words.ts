import { normalizeToken } from './tokenize';

/**
 * Folded words remembered per thread: a search folds the words of a few hundred candidate texts,
 * and the next search folds mostly the same words again. Up to FOLDS_MAX distinct raw words (a
 * store's vocabulary, a few megabytes at most); reaching the bound clears the map, cheaper than
 * keeping an order of use. Only words are kept, never a text: keeping each candidate's split text
 * as well made a search ~20% cheaper at 1k facts, but at 100k it grew a worker's heap to ~60 MB
 * between collections and a search's p99 from ~4 to 6-7 ms. The words of a forgotten text stay
 * only in memory, until the map is cleared or the thread stops (a resting process stops its
 * workers and clears its own).
 */
const FOLDS_MAX = 50_000;

let folds = new Map<string, string>();

/** normalizeToken, remembered per raw word. */
export function foldWord(raw: string): string {
  let folded = folds.get(raw);
  if (folded === undefined) {
    if (folds.size >= FOLDS_MAX) folds = new Map();
    folds.set(raw, (folded = normalizeToken(raw)));
  }
  return folded;
}

/** Drops the remembered words (a resting process gives the memory back). */
export function forgetFoldedWords(): void {
  folds = new Map();
}

/** How many words this thread remembers, for tests. */
export const foldedWordsHeld = (): number => folds.size;
