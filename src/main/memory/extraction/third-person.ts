import { textOf, type Token } from './nlp';

/**
 * Rewrites a first-person clause so it reads correctly out of context, about "User": "I love
 * hiking with my dog" -> "User loves hiking with their dog". The subject's verb is put in the
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

/**
 * `tokens[subject]` is "I" (or "my" for a possessive subject such as "my sister"); rewrites
 * tokens [subject, end) about User.
 */
export function aboutUser(tokens: Token[], subject: number, end = tokens.length): string {
  const out: string[] = [];
  let headDone = tokens[subject]!.lower === 'my';
  let laterSubject = false;
  for (let i = subject; i < end; i++) {
    const t = tokens[i]!;
    const space = i === subject ? '' : t.space;
    let word: string;
    if (i === subject) word = t.lower === 'my' ? "User's" : 'User';
    else if (!headDone && (t.pos === 'AUX' || t.pos === 'VERB')) {
      word = conjugateHead(t) ?? spelled(t);
      headDone = true;
    } else if (t.pos === 'PRON' && LATER_FIRST_PERSON[t.lower] && (t.lower !== 'i' || t.text === 'I')) {
      word = LATER_FIRST_PERSON[t.lower]!;
      laterSubject = t.lower === 'i';
    } else if (laterSubject && (t.lower === 'was' || t.lower === 'am' || t.lower === "'m")) {
      // "... since I was a kid" -> "since they were a kid"
      word = t.lower === 'was' ? 'were' : 'are';
      laterSubject = false;
    } else {
      word = spelled(t);
      if (t.pos !== 'ADV') laterSubject = false;
    }
    // Spelled-out contractions need the space the contraction did not have.
    const possessive = t.lower === "'s" && t.pos !== 'AUX';
    const needsSpace = space === '' && i > subject && /^'|^n't$/i.test(t.text) && !possessive;
    out.push((needsSpace ? ' ' : space) + word);
  }
  return out.join('').replace(/\s+([,.;:!?])/g, '$1');
}

export { textOf };
