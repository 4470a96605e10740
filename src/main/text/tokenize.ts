/**
 * The one tokenizer every lexical search shares: recall, memory_search over
 * facts, wiki pages and dialogue.
 *
 * Tokens are maximal runs of Unicode letters and digits in the NFC, lower-cased text; the
 * underscore and every other character separate tokens (`user.md` -> user, md; `snake_case`
 * -> snake, case). This is the same split SQLite's unicode61 tokenizer makes (with
 * remove_diacritics 0), so a token we compute is a term the FTS5 index holds.
 */
const TOKEN = /[\p{L}\p{N}]+/gu;

/**
 * Words that never decide a hit: English function words (the common NLTK list, with question
 * words, auxiliaries in every form — do, does, did, doing, done — and the clitic pieces the
 * tokenizer leaves behind: I'm -> i, m; don't -> don, t), and Vietnamese function words. They are
 * judged on the raw token, before folding, so every inflection a stop-word has is listed here.
 */
// prettier-ignore
export const STOP_WORDS: ReadonlySet<string> = new Set([
  // English: pronouns and determiners
  'i', 'me', 'my', 'myself', 'we', 'our', 'ours', 'ourselves', 'you', 'your', 'yours', 'yourself',
  'yourselves', 'he', 'him', 'his', 'himself', 'she', 'her', 'hers', 'herself', 'it', 'its', 'itself',
  'they', 'them', 'their', 'theirs', 'themselves', 'this', 'that', 'these', 'those', 'a', 'an', 'the',
  'some', 'any', 'each', 'both', 'all', 'few', 'more', 'most', 'other', 'such', 'own', 'same',
  // question words
  'what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how',
  // auxiliaries and modals, every form
  'am', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'have', 'has', 'had', 'having', 'do', 'does',
  'did', 'doing', 'done', 'can', 'could', 'will', 'would', 'shall', 'should', 'might', 'must',
  // conjunctions, prepositions, adverbs of degree
  'and', 'but', 'if', 'or', 'because', 'as', 'until', 'while', 'of', 'at', 'by', 'for', 'with', 'about',
  'against', 'between', 'into', 'through', 'during', 'before', 'after', 'above', 'below', 'to', 'from',
  'up', 'down', 'in', 'out', 'on', 'off', 'over', 'under', 'again', 'further', 'then', 'once', 'here',
  'there', 'nor', 'not', 'only', 'so', 'than', 'too', 'very', 'just', 'now', 'also',
  // clitic pieces: I'm, you're, we've, they'll, I'd, it's, don't, didn't ...
  's', 't', 'd', 'll', 'm', 'o', 're', 've', 'y', 'don', 'ain', 'aren', 'couldn', 'didn', 'doesn',
  'hadn', 'hasn', 'haven', 'isn', 'ma', 'mightn', 'mustn', 'needn', 'shan', 'shouldn', 'wasn', 'weren',
  'wouldn', // not 'won': it is far more often the verb than a piece of won't
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

/**
 * ASCII text (most of what agents store) takes a fast path with the same result: NFC leaves it
 * as it is, and its letters and digits are exactly [a-z0-9] once lower-cased. Unicode property
 * classes and normalization cost several times more per text, on every candidate of every search.
 */
// eslint-disable-next-line no-control-regex -- "all of ASCII" includes its control characters
const ASCII = /^[\x00-\x7f]*$/;
const ASCII_TOKEN = /[a-z0-9]+/g;

/** Case-folded raw tokens in order. */
export function rawTokens(text: string): string[] {
  if (ASCII.test(text)) return text.toLowerCase().match(ASCII_TOKEN) ?? [];
  return text.normalize('NFC').toLowerCase().match(TOKEN) ?? [];
}

/** A token holding a digit (a year, a version, a count) is kept whole: "2022" must not fold to "202". */
const HAS_DIGIT = /\p{N}/u;

/**
 * Whether a token holds a digit of any script. Tokens are mostly short ASCII words, for which a
 * scan of their character codes costs a fraction of a regular expression's test (this runs for
 * every word of every fact written); the first character past ASCII hands the token to the
 * Unicode test.
 */
function hasDigit(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    if (code >= 48 && code <= 57) return true;
    if (code > 127) return HAS_DIGIT.test(token);
  }
  return false;
}

/**
 * Words in `-che` whose plural is `-ches` + nothing more: every other `-ches` is `-ch` + `es`
 * (matches, branches, patches), which rule 4 folds to the singular.
 */
const CHE_WORDS: ReadonlySet<string> = new Set([
  'cache',
  'niche',
  'ache',
  'headache',
  'avalanche',
  'mustache',
  'moustache',
  'cliche',
  'quiche',
  'psyche',
  'tranche',
  'microfiche',
]);

/** A plural of `-ss`, `-x`, `-sh` or `-ch` (classes, boxes, pushes, matches), whose `es` goes with the `s`. */
const esPlural = (t: string): boolean =>
  t.endsWith('sses') ||
  t.endsWith('xes') ||
  t.endsWith('shes') ||
  (t.endsWith('ches') && !CHE_WORDS.has(t.slice(0, -1)));

/**
 * Light suffix folding so inflections meet (these rules, in this order), for words only
 * (tokens with a digit are never folded):
 * 1. length > 4 and ends in `ies` -> `y`, and stop;
 * 2. else length > 4 and ends in `ing` -> drop it;
 * 3. else length > 3 and ends in `ed` -> drop it;
 * 4. else length > 4 and ends in `sses`, `xes`, `shes` or `ches` (not a `-che` word's) -> drop `es`;
 * 5. else length > 3 and ends in `s` but not `ss` -> drop it;
 * 6. then, length still > 3 and the last two characters equal -> drop the last one.
 * running -> run, preferences -> preference, passed -> pas, classes -> clas (as class),
 * matches -> match, caches -> cache.
 */
export function normalizeToken(token: string): string {
  if (hasDigit(token)) return token;
  let t = token;
  if (t.length > 4 && t.endsWith('ies')) return t.slice(0, -3) + 'y';
  if (t.length > 4 && t.endsWith('ing')) t = t.slice(0, -3);
  else if (t.length > 3 && t.endsWith('ed')) t = t.slice(0, -2);
  else if (t.length > 4 && esPlural(t)) t = t.slice(0, -2);
  else if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss')) t = t.slice(0, -1);
  if (t.length > 3 && t[t.length - 1] === t[t.length - 2]) t = t.slice(0, -1);
  return t;
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
 * holds raw tokens. At most eleven candidates, each checked by running normalizeToken on it.
 */
export function surfaceForms(term: string): string[] {
  if (hasDigit(term)) return [term];
  const out = new Set<string>();
  const consider = (raw: string) => {
    if (normalizeToken(raw) === term) out.add(raw);
  };
  if (term.endsWith('y')) consider(term.slice(0, -1) + 'ies');
  const stems = [term];
  if (term.length >= 3) stems.push(term + term[term.length - 1]);
  for (const stem of stems) for (const suffix of ['', 'ing', 'ed', 's', 'es']) consider(stem + suffix);
  return [...out];
}

/**
 * Raw word -> the term it folds to, for every surface form of each term: a text's words are then
 * matched against a query by one lookup each, none of them folded.
 */
export function termsBySurfaceForm(terms: readonly string[]): Map<string, string> {
  return new Map(terms.flatMap((t) => surfaceForms(t).map((form) => [form, t] as const)));
}
