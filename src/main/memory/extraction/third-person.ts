import type { Token } from './nlp';

/**
 * Rewrites a first-person clause so it reads correctly out of context, about "User": "I love
 * hiking with my dog" -> "User loves hiking with their dog"; "We drove to the coast" -> "User and
 * others drove to the coast". The subject's verb is put in the
 * third person singular from the tagger's lemma; later first-person words become they/them/their.
 */

const IRREGULAR_THIRD: Record<string, string> = { be: 'is', have: 'has', do: 'does', go: 'goes' };
const CONTRACTIONS: Record<string, string> = {
  "'ve": 'have',
  "'ll": 'will',
  "'re": 'are',
  "n't": 'not',
  ca: 'can',
  wo: 'will',
  gonna: 'going to',
  wanna: 'want to',
  gotta: 'have to',
};
const LATER_FIRST_PERSON: Record<string, string> = {
  i: 'they',
  me: 'them',
  my: 'their',
  mine: 'theirs',
  myself: 'themselves',
  our: 'their',
  ours: 'theirs',
  us: 'them',
  ourselves: 'themselves',
};

/** "study" -> "studies", "watch" -> "watches", "love" -> "loves". */
export function thirdPersonSingular(lemma: string): string {
  const irregular = IRREGULAR_THIRD[lemma];
  if (irregular) return irregular;
  if (/[^aeiou]y$/.test(lemma)) return lemma.slice(0, -1) + 'ies';
  if (/(?:s|sh|ch|x|z|o)$/.test(lemma)) return lemma + 'es';
  return lemma + 's';
}

function spelled(t: Token): string {
  if (t.lower === "'d") return t.lemma === 'have' ? 'had' : 'would';
  if (t.lower === "'s" && t.pos === 'AUX') return t.lemma === 'have' ? 'has' : 'is';
  return CONTRACTIONS[t.lower] ?? t.text;
}

/** The subject's first verb, conjugated for "User"; null when it needs no change (past, modal). */
function conjugateHead(t: Token): string | null {
  const word = t.lower;
  if (word === 'am' || word === "'m") return 'is';
  if (word === 'was') return 'was';
  if (t.pos !== 'VERB' && t.pos !== 'AUX') return null;
  // Only a base form ("love", "have", "'ve") changes; past forms and modals read the same.
  const base = word === "'ve" ? 'have' : word;
  if (base !== t.lemma) return null;
  if (['will', 'would', 'can', 'could', 'should', 'may', 'might', 'must', 'shall'].includes(base)) return null;
  return thirdPersonSingular(base);
}

interface RewriteState {
  headDone: boolean;
  /** The previous word was a later "I" ("since I was a kid"): its verb agrees with "they". */
  laterSubject: boolean;
}

/** One token after the subject, as it reads about User. */
function rewriteToken(t: Token, state: RewriteState): string {
  if (!state.headDone && (t.pos === 'AUX' || t.pos === 'VERB')) {
    state.headDone = true;
    return conjugateHead(t) ?? spelled(t);
  }
  if (t.pos === 'PRON' && LATER_FIRST_PERSON[t.lower] && (t.lower !== 'i' || t.text === 'I')) {
    state.laterSubject = t.lower === 'i';
    return LATER_FIRST_PERSON[t.lower]!;
  }
  if (state.laterSubject && (t.lower === 'was' || t.lower === 'am' || t.lower === "'m")) {
    state.laterSubject = false;
    return t.lower === 'was' ? 'were' : 'are';
  }
  if (t.pos !== 'ADV') state.laterSubject = false;
  return spelled(t);
}

/** Spelled-out contractions need the space the contraction did not have; a possessive keeps none. */
function spaceBefore(t: Token): string {
  const possessive = t.lower === "'s" && t.pos !== 'AUX';
  return t.space === '' && /^'|^n't$/i.test(t.text) && !possessive ? ' ' : t.space;
}

/**
 * `tokens[subject]` is "I" (or "my" for a possessive subject such as "my sister"); rewrites
 * tokens [subject, end) about User.
 */
export function aboutUser(tokens: Token[], subject: number, end = tokens.length, companions?: string): string {
  const first = tokens[subject]!;
  const state: RewriteState = { headDone: first.lower === 'my', laterSubject: false };
  // "We" has no referent out of context: the user and whoever they were with, when the sentence named them.
  const we = `User and ${companions ?? 'others'}`;
  const out = [first.lower === 'my' ? "User's" : first.lower === 'we' ? we : 'User'];
  for (let i = subject + 1; i < end; i++) out.push(spaceBefore(tokens[i]!) + rewriteToken(tokens[i]!, state));
  return out.join('').replace(/\s+([,.;:!?])/g, '$1');
}
