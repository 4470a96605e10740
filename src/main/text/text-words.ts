import { STOP_WORDS, normalizeToken, rawTokens } from './tokenize';

/**
 * A text's words as the lexical rankings read them: each raw token, its folded form and whether
 * it is a stop-word, in order. A search ranks a few hundred candidate texts, and the next search
 * ranks many of the same ones again (a scope's common words bring the same newest rows), so the
 * split is kept per thread, keyed by the text itself: an entry can never describe a text other
 * than its key, whatever was edited or forgotten since (a forgotten text's entry is unreachable
 * and goes with the next clear). A process that rests clears its own (see rest-when-quiet.ts) and
 * stops its read-lane workers, which hold the rest.
 */
export interface TextWords {
  raw: readonly string[];
  folded: readonly string[];
  stop: readonly boolean[];
}

/**
 * Bounds on what a thread keeps: texts up to TEXT_CHARS_MAX characters in all (a long text is
 * split each time instead), and folded forms of FOLDS_MAX distinct raw words. Reaching a bound
 * clears that map: cheaper than keeping an order of use, and the hot texts return within a search.
 */
const TEXT_CHARS_MAX = 500_000;
const LONG_TEXT_CHARS = 4_000;
const FOLDS_MAX = 50_000;

let texts = new Map<string, TextWords>();
let textChars = 0;
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

function split(text: string): TextWords {
  const raw = rawTokens(text);
  return { raw, folded: raw.map(foldWord), stop: raw.map((r) => STOP_WORDS.has(r)) };
}

export function textWords(text: string): TextWords {
  let words = texts.get(text);
  if (words !== undefined) return words;
  words = split(text);
  if (text.length > LONG_TEXT_CHARS) return words;
  if (textChars + text.length > TEXT_CHARS_MAX) {
    texts = new Map();
    textChars = 0;
  }
  texts.set(text, words);
  textChars += text.length;
  return words;
}

/** Drops everything this thread keeps (a resting process gives the memory back). */
export function forgetTextWords(): void {
  texts = new Map();
  textChars = 0;
  folds = new Map();
}

/** What this thread keeps now, for tests. */
export const textWordsHeld = (): { texts: number; chars: number; folds: number } => ({
  texts: texts.size,
  chars: textChars,
  folds: folds.size,
});
