import { textOf, type Sentence, type Token } from './nlp';
import { aboutUser } from './third-person';

/**
 * Durable first-person statements in ordinary conversation ("I work as a nurse", "I moved to
 * Boston last year", "My sister runs a bakery"), read from the tagged sentence rather than by
 * pattern: the subject must be the speaker, the verb must state something about their life
 * (not a reaction, an opinion, a wish or a hypothetical), and the clause must say something
 * concrete on its own. Everything else in chat (greetings, thanks, questions, reactions to the
 * other person, what somebody else said) yields nothing.
 */

export interface PersonalStatement {
  kind: 'fact' | 'profile' | 'preference';
  text: string;
  /** How sure the shape makes us: a concrete object, a past event, a role, a possession. */
  strength: number;
}

/** Words that open chat without carrying content: skipped before looking for the subject. */
const OPENERS = new Set([
  'yeah',
  'yes',
  'yep',
  'yup',
  'no',
  'nope',
  'oh',
  'ooh',
  'wow',
  'hey',
  'hi',
  'hello',
  'well',
  'so',
  'and',
  'but',
  'also',
  'actually',
  'honestly',
  'ok',
  'okay',
  'haha',
  'lol',
  'aw',
  'aww',
  'ah',
  'hmm',
  'um',
  'totally',
  'absolutely',
  'definitely',
  'sure',
  'right',
  'true',
  'thanks',
  'thank',
  'cool',
  'great',
  'awesome',
  'nice',
  'anyway',
  'plus',
  'btw',
  'now',
  'then',
  'still',
  'really',
  'just',
  'recently',
  'lately',
  'finally',
  'today',
  'yesterday',
  'last',
  'next',
  'this',
  'week',
  'weekend',
  'month',
  'year',
  'night',
  'morning',
  'friday',
  'saturday',
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'ago',
  'few',
  'a',
  'couple',
  'of',
  'days',
  'weeks',
  'months',
  'years',
  'back',
  'in',
  'since',
  'fun',
  'fact',
  'guess',
  'what',
]);

/**
 * Verbs whose first-person use is a reaction, an opinion, a feeling, talk about the talk or a
 * wish, not a fact about the speaker's life.
 */
const NOT_A_FACT = new Set([
  'agree',
  'think',
  'guess',
  'hope',
  'wish',
  'wonder',
  'bet',
  'mean',
  'know',
  'understand',
  'see',
  'thank',
  'appreciate',
  'feel',
  'imagine',
  'believe',
  'suppose',
  'say',
  'tell',
  'ask',
  'admire',
  'mind',
  'promise',
  'suggest',
  'recommend',
  'wait',
  'want',
  'need',
  'would',
  'could',
  'should',
  'might',
  'may',
  'must',
  'can',
  'hear',
  'look',
  'seem',
  'sound',
  'let',
  'try',
  'cannot',
  'totally',
  'remember',
  'forget',
  'check',
  'send',
  'show',
  'share',
  'find',
  'realize',
  'notice',
  'doubt',
  'count',
  'cheer',
  'congratulate',
  'reckon',
  'assume',
  'expect',
  'intend',
  'aim',
  'keep',
  'like',
  'love',
  'enjoy',
  'hate',
  'adore',
  'prefer',
  'miss',
  'laugh',
  'cry',
  'smile',
  'relate',
  'wanna',
  'gotta',
  'gonna',
  'figure',
  'wonder',
  'dream',
]);

const ROLE =
  /\b(?:developer|engineer|programmer|designer|scientist|researcher|student|teacher|professor|manager|architect|analyst|writer|author|consultant|founder|owner|administrator|admin|maintainer|tester|freelancer|journalist|lawyer|doctor|nurse|accountant|artist|painter|musician|singer|photographer|chef|cook|baker|athlete|player|coach|trainer|counselor|therapist|volunteer|mother|father|mom|dad|parent|veteran|officer|soldier|firefighter|pilot|driver|mechanic|electrician|plumber|farmer|entrepreneur|intern|lead|director|editor|producer|filmmaker|dancer|actor|actress|instructor|tutor|librarian|pharmacist|dentist|vet|veterinarian|programmer|gamer|streamer|blogger|vlogger|influencer|model|youtuber)s?\b/i;

/** The other person: a sentence that mentions them is about them or the conversation. */
const SECOND_PERSON = new Set(['you', 'your', 'yours', 'yourself', "y'all", 'ya', 'u']);
const BARE_PRONOUNS = new Set(['it', 'this', 'that', 'them', 'those', 'these', 'one', 'so', 'too', 'there']);
/** Pointers to the moment (a photo, the last message): the clause cannot be read without it. */
const POINTERS = new Set([
  'it',
  'this',
  'that',
  'these',
  'those',
  'them',
  'they',
  'he',
  'she',
  'him',
  'her',
  'here',
  'there',
  'something',
  'stuff',
  'thing',
  'things',
]);
/**
 * Echoing the other person ("I love it too", "me either", "same") is a reaction, not news. "Also"
 * is not: "I also volunteer at the shelter" adds something about the speaker.
 */
const ECHO = new Set(['too', 'either', 'same']);
/** Nouns that say how something felt, not what it was ("quite the adventure", "a blast"). */
const VAGUE_NOUNS =
  /^(?:adventure|experience|journey|ride|blast|fun|moment|stuff|thing|dream|passion|life|progress|lot|bit|way|time|chance|opportunity|feeling|vibe|energy|mood|luck|story|deal|step|challenge|struggle|success)s?$/;
const TIME_NOUNS =
  /^(?:year|month|week|weekend|morning|afternoon|evening|night|summer|winter|spring|fall|autumn|time|season|semester|day)s?$/;

/** A demonstrative or personal pronoun in the clause that is not part of a time phrase ("this year"). */
function pointsAtTheMoment(clause: Token[]): boolean {
  return clause.some((t, i) => {
    if (!POINTERS.has(t.lower)) return false;
    const next = clause[i + 1];
    // "I found out that they ..." opens a clause; "that pic" points at one.
    if (t.lower === 'that' && next && ['PRON', 'DET', 'PROPN'].includes(next.pos)) return false;
    // "a book that captivates me": after a noun, "that" opens a relative clause about it.
    if (t.lower === 'that' && clause[i - 1]?.pos === 'NOUN' && next && next.pos !== 'NOUN') return false;
    return !(next && TIME_NOUNS.test(next.lower));
  });
}
const HYPOTHETICAL = new Set(['if', 'unless', 'whether', 'would', 'could', 'might', 'should', 'maybe', 'perhaps']);
const REPORTING = new Set(['say', 'tell', 'ask', 'claim', 'mention', 'write']);
const SUBJECT_PRONOUNS = new Set(['he', 'she', 'it', 'they', 'we', 'this', 'that', 'there', 'you', 'who']);
const CONTENT_POS = new Set(['NOUN', 'PROPN', 'NUM']);
const BE_COMPLEMENT = new Set(['DET', 'NOUN', 'PROPN', 'NUM', 'ADP']);

/** Index of the speaker as subject ("I", "we", or "my" + noun), after openers; -1 when there is none. */
function findSubject(tokens: Token[]): number {
  for (let i = 0; i < Math.min(tokens.length, 8); i++) {
    const t = tokens[i]!;
    if (t.lower === 'i' && t.text === 'I') return i;
    if (t.lower === 'we' && t.pos === 'PRON') return i;
    if (t.lower === 'my' && tokens[i + 1]?.pos === 'NOUN') return i;
    const skippable = t.pos === 'PUNCT' || t.pos === 'INTJ' || OPENERS.has(t.lower) || (t.pos === 'PROPN' && i < 3);
    if (skippable || isTimeUnit(tokens[i - 1], t)) continue;
    return afterLeadIn(tokens, i);
  }
  return -1;
}

/** "Since we last talked, I ...": a short lead-in clause closed by a comma, not addressed to the other person. */
function afterLeadIn(tokens: Token[], from: number): number {
  for (let i = from; i < Math.min(tokens.length - 1, 10); i++) {
    const t = tokens[i]!;
    if (SECOND_PERSON.has(t.lower) || t.lower === 'if' || t.lower === 'when') return -1;
    if ((t.text === ',' || /^[-–—:]$/.test(t.text)) && tokens[i + 1]!.text === 'I') return i + 1;
  }
  return -1;
}

const ENDS_SENTENCE = /^[.!?;]$/;
const OPENS_OTHER_CLAUSE = /^(?:and|but|so|because|which|while|though|although)$/;

/** A conjunction or mark followed by a new subject ("..., and I lead the team"; "- they said"). */
function opensNewSubject(t: Token, next: Token | undefined): boolean {
  const boundary = t.pos === 'CCONJ' || t.pos === 'SCONJ' || /^[-–—,;:]$/.test(t.text);
  return boundary && !!next && (SUBJECT_PRONOUNS.has(next.lower) || next.text === 'I');
}

/** Whether the clause stops before token `t` (followed by `next`). */
function breaksClause(t: Token, next: Token | undefined): boolean {
  // "I'm having a show - can't wait": a dash set off by spaces closes the clause.
  if (/^[-–—]$/.test(t.text) && t.space !== '') return true;
  if (opensNewSubject(t, next) || (t.pos === 'PUNCT' && ENDS_SENTENCE.test(t.text))) return true;
  // ", so things are tight", ", which ...": what follows the comma is about something else.
  if (t.text === ',' && next && OPENS_OTHER_CLAUSE.test(next.lower)) return true;
  return t.lower === 'but' || t.lower === 'because' || (/^'?cause$/.test(t.lower) && t.pos === 'SCONJ');
}

/** The end of the speaker's clause: before a conjunction or mark that starts another clause. */
function clauseEnd(tokens: Token[], from: number): number {
  for (let i = from + 1; i < tokens.length; i++) if (breaksClause(tokens[i]!, tokens[i + 1])) return i;
  return tokens.length;
}

interface VerbGroup {
  /** Index of the main verb (or of "be"/"have" when it is the main verb). */
  head: number;
  lemma: string;
  auxiliaries: string[];
  negated: boolean;
}

/** The tagger reads "hiking" in "I'm hiking this weekend" as a noun: after "be" it is the verb. */
const progressiveReadAsNoun = (t: Token, auxiliaries: string[]) =>
  t.pos === 'NOUN' &&
  /[^aeiou]ing$/.test(t.lower) &&
  t.lower.length > 5 &&
  auxiliaries[auxiliaries.length - 1] === 'be';

/** "hiking" -> "hike", "running" -> "run", "reading" -> "read": close enough to look a verb up. */
function ingLemma(word: string): string {
  const stem = word.slice(0, -3);
  if (/([^aeiou])\1$/.test(stem) && !/(?:ll|ss)$/.test(stem)) return stem.slice(0, -1);
  return /[^aeiouy][^aeiouywx]$/.test(stem) || /(?:ss|ll|ng|sh|ch|ck)$/.test(stem) ? stem : stem + 'e';
}

function verbGroup(tokens: Token[], subject: number): VerbGroup | null {
  let i = subject + 1;
  if (tokens[subject]!.lower === 'my') {
    while (i < tokens.length && ['NOUN', 'ADJ', 'PROPN'].includes(tokens[i]!.pos)) i++;
  }
  const auxiliaries: string[] = [];
  let negated = false;
  let lastAux = -1;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.pos === 'AUX') {
      auxiliaries.push(t.lemma);
      lastAux = i;
    } else if (t.pos === 'PART' && /^(?:not|n't)$/.test(t.lower)) negated = true;
    else if (t.pos === 'ADV' && i - subject <= 4) continue;
    else if (t.pos === 'VERB') return { head: i, lemma: t.lemma, auxiliaries, negated };
    else if (progressiveReadAsNoun(t, auxiliaries)) return { head: i, lemma: ingLemma(t.lower), auxiliaries, negated };
    else break;
  }
  if (lastAux < 0) return null;
  return { head: lastAux, lemma: tokens[lastAux]!.lemma, auxiliaries: auxiliaries.slice(0, -1), negated };
}

/** "I'm going to ...", "I'm gonna ...", "I'm off to ...": an intention, not yet a fact. */
function isFuture(tokens: Token[], subject: number, group: VerbGroup): boolean {
  const near = tokens
    .slice(subject + 1, group.head + 3)
    .filter((t) => t.pos !== 'ADV' || t.lower === 'off')
    .map((t) => t.lower);
  if (near.includes('gonna') || near.includes('off')) return true;
  // "I'm going to <verb>", not "I started going to boot camps".
  const going = near.indexOf('going');
  if (going < 0 || going > 1 || near[going + 1] !== 'to' || group.lemma !== 'go') return false;
  // "going to start" is an intention; "going to a conference" is where they go.
  const after = tokens.slice(group.head + 1).find((t) => t.pos !== 'ADV' && t.lower !== 'to');
  return !after || after.pos === 'VERB' || after.pos === 'AUX';
}

/** "I plan to ...", "I hope to ...": a wish or an intention, not a fact yet. */
const INTENT = new Set(['plan', 'want', 'hope', 'intend', 'aim', 'try', 'wish', 'need', 'have']);
const intends = (tokens: Token[], group: VerbGroup) =>
  INTENT.has(group.lemma) && tokens[group.head + 1]?.lower === 'to' && !hadTo(tokens[group.head]!);
/** "I had to shut down my account" happened; "I have to ..." is still to do. */
const hadTo = (head: Token) => head.lemma === 'have' && head.lower === 'had';

const isPast = (t: Token) => t.lower !== t.lemma && !/ing$/.test(t.lower) && !/s$/.test(t.lower);

const INTENSIFIERS = new Set([
  'super',
  'so',
  'really',
  'very',
  'kinda',
  'pretty',
  'totally',
  'quite',
  'extremely',
  'real',
  'truly',
  'still',
  'now',
  'currently',
  'always',
  'just',
  'already',
]);
export const ROLE_STRENGTH = 3;

/**
 * Adjectives for a lasting condition or status of a person (diet, health, family status, work
 * status), unlike the feelings and judgements ("happy", "great") that "I am" usually carries.
 */
const CONDITION =
  /^(?:allergic|intolerant|vegan|vegetarian|pescatarian|diabetic|asthmatic|celiac|coeliac|epileptic|deaf|blind|colou?rblind|pregnant|sober|married|engaged|divorced|widowed|separated|single|retired|unemployed|self-employed|bilingual|trilingual|fluent|left-handed|right-handed|introverted|extroverted|religious|adopted|disabled|homeschooled)$/;

/** "I'm lactose intolerant", "I'm allergic to cats", "I am vegan": a condition, not a mood. */
function statesCondition(after: Token[]): boolean {
  const words = after.filter((t) => t.pos !== 'ADV' && !INTENSIFIERS.has(t.lower)).slice(0, 3);
  return words.some((t) => CONDITION.test(t.lower) && (t.pos === 'ADJ' || t.pos === 'VERB' || t.pos === 'NOUN'));
}

/** "I am so happy", "I'm glad to ...": a feeling; "I am a nurse", "I'm from Sweden": about them. */
function judgeBe(after: Token[]): number {
  const words = after.filter((t) => !INTENSIFIERS.has(t.lower) && t.pos !== 'ADV');
  const first = words[0];
  if (!first || !BE_COMPLEMENT.has(first.pos)) return 0;
  const head = words.slice(0, 5);
  const article = first.lower === 'a' || first.lower === 'an';
  if (article && head.some((t) => t.pos === 'NOUN' && ROLE.test(t.text))) return ROLE_STRENGTH;
  // A name or a number ("I'm from Sweden", "I've been to Paris", "I'm in my 30s") is concrete.
  if (words.some((t) => t.pos === 'PROPN' || t.pos === 'NUM')) return 2;
  return first.pos === 'ADP' ? 1.5 : 1;
}

/** "for now", "this time": said to hold only for a while. */
const PROVISIONAL =
  /\b(?:for now|for the moment|for the time being|temporarily|this time|just this once|right now|at the moment|as we speak)\b/;

/** About the other person, an echo, a pointer, a hypothetical, a plan, a denial or reported speech. */
function notAboutTheirLife(tokens: Token[], subject: number, end: number, group: VerbGroup): boolean {
  const clause = tokens.slice(subject, end);
  if (clause.some((t) => SECOND_PERSON.has(t.lower) || ECHO.has(t.lower)) || pointsAtTheMoment(clause)) return true;
  if (tokens.some((t) => HYPOTHETICAL.has(t.lower))) return true;
  if (group.auxiliaries.some((a) => HYPOTHETICAL.has(a) || a === 'can' || a === 'will' || a === 'shall')) return true;
  if (isFuture(tokens, subject, group) || intends(tokens, group) || group.negated) return true;
  if (PROVISIONAL.test(tokens.map((t) => t.lower).join(' '))) return true;
  return tokens.some((t, i) => REPORTING.has(t.lemma) && t.pos === 'VERB' && i !== group.head);
}

/** Nouns, names and numbers that say what happened: not time words ("last week") nor vague ones. */
const concrete = (t: Token) =>
  CONTENT_POS.has(t.pos) && !BARE_PRONOUNS.has(t.lower) && !TIME_NOUNS.test(t.lower) && !VAGUE_NOUNS.test(t.lower);

/**
 * "I'm doing kickboxing", "going into policymaking": an -ing word right after a verb or a
 * preposition is a gerund naming an activity, a noun in all but its tag.
 */
function isGerundObject(after: Token[], i: number): boolean {
  const t = after[i]!;
  const before = after[i - 1];
  if (t.pos !== 'VERB' || !/[^aeiou]ing$/.test(t.lower) || t.lower.length < 6) return false;
  if (after[i + 1] && ['DET', 'NOUN', 'PROPN', 'PRON', 'NUM', 'ADJ'].includes(after[i + 1]!.pos)) return false;
  return i === 0 || before?.pos === 'ADP';
}

/** "I'm looking into nursing jobs", "I'm looking for a flat": a search under way, not a glance. */
const searchesFor = (head: Token, after: Token[]) =>
  head.lemma === 'look' && /^(?:into|for|after)$/.test(after[0]?.lower ?? '');

/** Reject what is not a statement about the speaker's life; otherwise how strong it is. */
/**
 * Something done, going on for a while ("I'm learning German") or a habit ("I teach maths") is
 * news about their life; a modal or an intention never gets this far.
 */
function settled(head: Token, group: VerbGroup): boolean {
  const ongoing = group.auxiliaries.includes('be') && head.lower.endsWith('ing');
  const habitual = group.auxiliaries.length === 0 && head.lower === head.lemma;
  return isPast(head) || group.auxiliaries.includes('have') || ongoing || habitual;
}

function judge(tokens: Token[], subject: number, end: number, group: VerbGroup): number {
  if (notAboutTheirLife(tokens, subject, end, group)) return 0;
  const head = tokens[group.head]!;
  const after = tokens.slice(group.head + 1, end).filter((t) => t.pos !== 'PUNCT');
  const first = after.find((t) => t.pos !== 'ADV' && t.pos !== 'PART');
  if (!first || (BARE_PRONOUNS.has(first.lower) && !after.some((t) => CONTENT_POS.has(t.pos)))) return 0;
  if (group.lemma === 'be' && statesCondition(after)) return 2.5;
  const content = after.filter((t, i) => concrete(t) || isGerundObject(after, i)).length;
  if (content === 0) return 0;
  // "We" is the user with people the conversation knows; only a plain past event of theirs is kept.
  if (tokens[subject]!.lower === 'we' && !(isPast(head) && group.auxiliaries.length === 0)) return 0;
  if (group.lemma === 'be') return judgeBe(after);
  if (NOT_A_FACT.has(group.lemma) && !searchesFor(head, after)) return 0;
  return 1 + Math.min(content, 3) * 0.5 + (settled(head, group) ? 0.5 : 0);
}

interface ClauseOptions {
  /** Who "we" is when the sentence said so ("My wife and I ..." -> "their wife"). */
  companions?: string;
  /** A clause put before the main one ("Since I lost my job, ...") ends at its comma. */
  endAtComma?: boolean;
}

function statementAt(
  tokens: Token[],
  subject: number,
  options: ClauseOptions = {},
): { statement: PersonalStatement | null; end: number } | null {
  const group = verbGroup(tokens, subject);
  if (!group) return null;
  let end = clauseEnd(tokens, group.head);
  if (options.endAtComma) {
    const comma = tokens.findIndex((t, i) => i > group.head && i < end && t.text === ',');
    if (comma > 0) end = comma;
  }
  const strength = judge(tokens, subject, end, group);
  if (strength <= 0) return { statement: null, end };
  const text =
    aboutUser(tokens, subject, end, options.companions).replace(/[,;:\s-]+$/, '') + leadingTime(tokens, subject) + '.';
  const role = group.lemma === 'be' && strength >= ROLE_STRENGTH;
  return { statement: { kind: role ? 'profile' : 'fact', text, strength }, end };
}

/** The next "I" that opens a coordinated clause ("..., and I lead the team"), or -1. */
function nextSubject(tokens: Token[], end: number): number {
  const link = tokens[end];
  if (!link || !(link.pos === 'CCONJ' || /^[,;:–—-]$/.test(link.text))) return -1;
  for (let i = end + 1; i <= end + 2 && i < tokens.length; i++) {
    if (tokens[i]!.text === 'I') return i;
    if (tokens[i]!.pos !== 'CCONJ' && tokens[i]!.pos !== 'ADV') return -1;
  }
  return -1;
}

/**
 * Chat drops the subject: "Started a pottery class last week", "Lost my job in March". A past
 * verb opening the sentence (after openers) is read as the speaker's; "I" is put back in.
 */
function withImpliedSubject(tokens: Token[]): Token[] | null {
  let i = 0;
  while (
    i < tokens.length &&
    (tokens[i]!.pos === 'PUNCT' || tokens[i]!.pos === 'INTJ' || OPENERS.has(tokens[i]!.lower))
  ) {
    i++;
  }
  const verb = tokens[i];
  if (!verb || verb.pos !== 'VERB' || !isPast(verb) || i > 4) return null;
  if (tokens.slice(0, i).some((t) => t.pos === 'PROPN')) return null;
  const me: Token = { text: 'I', lower: 'i', pos: 'PRON', lemma: 'i', negated: false, space: '' };
  return [...tokens.slice(0, i), me, { ...verb, text: verb.lower, space: ' ' }, ...tokens.slice(i + 1)];
}

const QUOTED_SPEAKER = new Set(['i', 'you', 'we', 'me', 'my', 'your', 'us', 'our']);

/**
 * A quotation is reported speech ("she said "I'll be there"") unless it is a short title or name
 * ("I'm reading "The Lean Startup""): one with a speaker's pronoun in it, more than eight words,
 * or opened after a reporting verb or a colon is somebody's words, not the user's statement.
 */
function quotesSpeech(tokens: Token[]): boolean {
  let open = -1;
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i]!.text !== '"') continue;
    if (open < 0) {
      open = i;
      const before = tokens[i - 1];
      if (before && (before.text === ':' || before.text === ',' || REPORTING.has(before.lemma))) return true;
      continue;
    }
    const inside = tokens.slice(open + 1, i);
    if (inside.length > 8 || inside.some((t) => QUOTED_SPEAKER.has(t.lower))) return true;
    open = -1;
  }
  return open >= 0;
}

/**
 * Durable first-person statements in the sentence, one per clause the speaker is the subject
 * of ("My name is Dana and I lead the mobile team" has two), rewritten about User.
 */
export function personalStatements(sentence: Sentence): PersonalStatement[] {
  if (sentence.tokens.length < 4 || /\?\s*$/.test(sentence.text) || quotesSpeech(sentence.tokens)) return [];
  const compound = withCompoundSubject(sentence.tokens);
  let tokens = compound?.tokens ?? sentence.tokens;
  let subject = findSubject(tokens);
  if (subject < 0) {
    const implied = withImpliedSubject(tokens);
    if (!implied) return [];
    tokens = implied;
    subject = findSubject(tokens);
  }
  const out: PersonalStatement[] = [];
  let options: ClauseOptions = {
    endAtComma: tokens.slice(0, subject).some((t) => SUBORDINATORS.has(t.lower)),
    companions: compound?.companions,
  };
  for (let guard = 0; subject >= 0 && guard < 8; guard++) {
    const found = statementAt(tokens, subject, options);
    if (!found) break;
    if (found.statement) out.push(found.statement);
    subject = nextSubject(tokens, found.end);
    options = {};
  }
  return out;
}

const TIME_LEAD = /^(?:last|next|this|every)$/;
const DAY_NAMES = /^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)s?$/;

/** "Next month I'm having a show": the time phrase before the subject goes after the clause. */
function leadingTime(tokens: Token[], subject: number): string {
  for (let i = 1; i < subject; i++) {
    if (isTimeUnit(tokens[i - 1], tokens[i]!)) return ` ${tokens[i - 1]!.lower} ${tokens[i]!.text}`;
  }
  return '';
}

/** "spring" in "next spring", "Friday" in "last Friday": the unit of a time phrase. */
const isTimeUnit = (lead: Token | undefined, unit: Token) =>
  !!lead && TIME_LEAD.test(lead.lower) && (TIME_NOUNS.test(unit.lower) || DAY_NAMES.test(unit.lower));

/**
 * "My wife and I moved to Denver", "Sam and I went hiking": a subject made of someone and the
 * speaker is "we" with a known companion. Returns the tokens with "we" in its place, and the
 * companion as it reads about User ("their wife", "Sam").
 */
const isOpener = (t: Token) => t.pos === 'PUNCT' || t.pos === 'INTJ' || OPENERS.has(t.lower);
const NAMING = new Set(['NOUN', 'PROPN', 'ADJ']);

function withCompoundSubject(tokens: Token[]): { tokens: Token[]; companions: string } | null {
  let start = 0;
  while (start < tokens.length && isOpener(tokens[start]!)) start++;
  const first = tokens[start]?.lower === 'my' ? start + 1 : start;
  let i = first;
  while (tokens[i] && NAMING.has(tokens[i]!.pos)) i++;
  const named = tokens.slice(first, i);
  const linked = tokens[i]?.lower === 'and' && tokens[i + 1]?.text === 'I';
  if (!linked || named.length === 0 || named.length > 3 || named.every((t) => t.pos === 'ADJ')) return null;
  const companions = (first > start ? 'their ' : '') + textOf(named);
  const we: Token = { text: 'we', lower: 'we', pos: 'PRON', lemma: 'we', negated: false, space: tokens[start]!.space };
  return { tokens: [...tokens.slice(0, start), we, ...tokens.slice(i + 2)], companions };
}

/** Words that open a clause about when or why something happened. */
const SUBORDINATORS = new Set(['since', 'after', 'when', 'before', 'once', 'while', 'because', 'as']);
