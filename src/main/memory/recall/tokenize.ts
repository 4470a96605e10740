/**
 * The one tokenizer every lexical search shares (reference §5.2): recall, memory_search over
 * facts, wiki pages and dialogue.
 *
 * Tokens are maximal runs of Unicode letters and digits in the NFC, lower-cased text; the
 * underscore and every other character separate tokens (`user.md` -> user, md; `snake_case`
 * -> snake, case). This is the same split SQLite's unicode61 tokenizer makes (with
 * remove_diacritics 0), so a token we compute is a term the FTS5 index holds.
 */
const TOKEN = /[\p{L}\p{N}]+/gu;

// prettier-ignore
export const STOP_WORDS: ReadonlySet<string> = new Set([
  // English
  'a', 'an', 'and', 'are', 'be', 'did', 'do', 'does', 'for', 'how', 'in', 'is', 'me', 'my', 'of', 's',
  'should', 'the', 'to', 'what', 'which', 'with', 'you',
  // Vietnamese
  'các', 'cho', 'của', 'đã', 'được', 'hãy', 'không', 'là', 'một', 'nào', 'những', 'thế', 'thì', 'tôi',
  'trong', 'và', 'về', 'với',
]);

/**
 * Words that carry no request on their own: a prompt made only of these ("ok thanks",
 * "yes continue") is conversation glue, so automatic recall abstains on it.
 */
// prettier-ignore
export const FILLER_WORDS: ReadonlySet<string> = new Set([
  'ok', 'okay', 'k', 'thanks', 'thank', 'thx', 'ty', 'yes', 'yeah', 'yep', 'yup', 'no', 'nope', 'sure',
  'continue', 'go', 'on', 'ahead', 'please', 'pls', 'hi', 'hello', 'hey', 'cool', 'great', 'nice', 'good',
  'done', 'next', 'lgtm', 'right', 'fine', 'alright', 'proceed', 'again', 'more', 'it', 'that', 'this',
]);

/** Case-folded raw tokens in order. */
export function rawTokens(text: string): string[] {
  return text.normalize('NFC').toLowerCase().match(TOKEN) ?? [];
}

/**
 * Light suffix folding so inflections meet (reference §5.2, in this order):
 * 1. length > 4 and ends in `ies` -> `y`, and stop;
 * 2. else length > 4 and ends in `ing` -> drop it;
 * 3. else length > 3 and ends in `ed` -> drop it;
 * 4. else length > 3 and ends in `s` but not `ss` -> drop it;
 * 5. then, length still > 3 and the last two characters equal -> drop the last one.
 * running -> run, preferences -> preference, passed -> pas.
 */
export function normalizeToken(token: string): string {
  let t = token;
  if (t.length > 4 && t.endsWith('ies')) return t.slice(0, -3) + 'y';
  if (t.length > 4 && t.endsWith('ing')) t = t.slice(0, -3);
  else if (t.length > 3 && t.endsWith('ed')) t = t.slice(0, -2);
  else if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss')) t = t.slice(0, -1);
  if (t.length > 3 && t[t.length - 1] === t[t.length - 2]) t = t.slice(0, -1);
  return t;
}

/** Normalized tokens of a text, in order, stop-words included (for lengths and phrases). */
export function normalizedTokens(text: string): string[] {
  return rawTokens(text).map(normalizeToken);
}

export interface QueryTerms {
  /** Distinct normalized tokens of the non-stop-words, in first-seen order. */
  meaningful: string[];
  /** Distinct normalized tokens of every word, in first-seen order. */
  all: string[];
  /** Normalized non-stop-word tokens in order, duplicates kept: the query's phrase. */
  sequence: string[];
}

export function queryTerms(text: string): QueryTerms {
  const meaningful = new Set<string>();
  const all = new Set<string>();
  const sequence: string[] = [];
  for (const raw of rawTokens(text)) {
    const n = normalizeToken(raw);
    all.add(n);
    // Stop-words are judged on the raw token, before normalization.
    if (STOP_WORDS.has(raw)) continue;
    meaningful.add(n);
    sequence.push(n);
  }
  return { meaningful: [...meaningful], all: [...all], sequence };
}

/**
 * Every raw token that normalizes to `term`: the exact FTS5 terms to ask for, since the index
 * holds raw tokens. At most nine candidates, each checked by running normalizeToken on it.
 */
export function surfaceForms(term: string): string[] {
  const out = new Set<string>();
  const consider = (raw: string) => {
    if (normalizeToken(raw) === term) out.add(raw);
  };
  if (term.endsWith('y')) consider(term.slice(0, -1) + 'ies');
  const stems = [term];
  if (term.length >= 3) stems.push(term + term[term.length - 1]);
  for (const stem of stems) for (const suffix of ['', 'ing', 'ed', 's']) consider(stem + suffix);
  return [...out];
}
