import type { Confidence, FactKind, Scope } from '../../../shared/domain';
import { ANSWER_STYLE, CODE_TASK, TECHNICAL, WORK_ROLE, isWorkContent } from './content';

/**
 * Explicit statements that a pattern recognises reliably: preferences and profile ("I prefer
 * ...", "call me ...", "my name is ..."), standing instructions ("always/never ...", "from now
 * on ..."), decisions ("we decided ...", "let's go with ...", "we'll use X for Y"), conventions,
 * constraints and stable project facts. Questions, hedges, one-off or time-bound requests and
 * pointers to the moment ("let's go with that") yield nothing. Scope follows the content: the
 * person's own preferences and profile may be user-wide; anything about a codebase, tool,
 * project or workflow stays local.
 */

export interface Proposal {
  kind: FactKind;
  scope: Scope;
  confidence: Confidence;
  text: string;
}

export type Rule = (sentence: string) => Proposal | null;

const FILLER =
  /^(?:ok(?:ay)?|so|also|and|but|alright|right|great|cool|well|btw|by the way|fyi|oh|hey|hi|note|one more thing|just so you know|for the record|please note(?: that)?|note that|remember(?: that)?|please remember(?: that)?|keep in mind(?: that)?|important(?:ly)?|for context)\b[,:;]?\s*/i;

const QUESTION =
  /^(?:what|why|how|when|where|who|whom|which|whose|can (?:you|we|i)|could (?:you|we|i)|would (?:you|we|it)|will (?:you|we|it)|do (?:you|we|i)|does|did|is (?:it|this|that|there)|are (?:you|we|there|these)|shall|should (?:i|we)|any idea|have you|has anyone)\b/i;

const HEDGE =
  /\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|i suppose|not sure|unsure|i wonder|what if|hypothetically|for example|for instance|e\.g\.|let me know|if you (?:want|like|can)|wondering|considering|thinking about|would it be)\b/i;

// Marks a request as one-off. Not "first" ("code first" is an order, not a time) nor "now" alone.
const TRANSIENT =
  /\b(?:today|tonight|tomorrow|yesterday|right now|just now|for now|this time|just this once|this once|for this (?:task|one|answer|question|message|file|change|pr|commit|session)|at the moment|this morning|this afternoon|this evening|this week|temporarily|for the moment|next week|asap|in a minute)\b/i;

const DO_NOT_KEEP =
  /\b(?:don'?t|do not|never|please don'?t) (?:remember|store|save|memori[sz]e|record|keep|note)\b|\bforget (?:this|that|it|what i said)\b|\boff the record\b|\bnot for memory\b/i;

const DURABLE_PREFIX =
  /^(?:from now on|going forward|moving forward|in (?:the )?future|henceforth|from here on(?: out)?)\b[,:]?\s*/i;

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const endSentence = (s: string) => (/[.!]$/.test(s) ? s.replace(/!+$/, '.') : s + '.');
const thirdPerson = (s: string) =>
  s
    .replace(/\bmy\b/gi, 'their')
    .replace(/\bmyself\b/gi, 'themselves')
    .replace(/\bme\b/gi, 'them')
    .replace(/\bI'm\b/g, 'they are')
    .replace(/\bI am\b/g, 'they are')
    .replace(/\bI\b/g, 'they');

const PERSONAL_VERBS: [RegExp, string, boolean][] = [
  [/^i\s+(?:really\s+|strongly\s+|generally\s+|usually\s+|always\s+)?prefer\s+/i, 'User prefers ', true],
  [/^i(?:'d| would)\s+(?:much\s+)?rather\s+/i, 'User would rather ', true],
  [/^i\s+(?:really\s+)?(?:like|love|enjoy)\s+/i, 'User likes ', false],
  [/^i\s+(?:really\s+)?(?:hate|dislike|can'?t stand|don'?t like|do not like)\s+/i, 'User dislikes ', false],
  [/^i\s+always\s+(?:want|need|use|write|work|read)\s+/i, '', true],
  [/^i\s+never\s+(?:want|use|write|work|read)\s+/i, '', true],
];

// "I like this answer" or "I love it" is a reaction to the moment, not a preference.
const REACTION_OBJECT =
  /^(?:this|that|it|these|those|them|your|yours|you|the (?:answer|reply|response|idea|result|change|fix|plan|suggestion|way|thought|color|look|sound)|how|what|when|all (?:the|of)|hearing|seeing|reading)\b/i;
// A liking that echoes the other person ("... too") or points at the moment ("that world") is a reaction.
// "this repo" names the project; "this" alone, or "that" not opening a clause, points at the moment.
const POINTER_OBJECT =
  /\b(?:it|them|these|those)\b|\bthis\b(?!\s+(?:repo|repository|codebase|project|app|team|service|package|library|monorepo|workspace)\b)|\bthat\b(?!\s+(?:you|we|the|it|my|our|they|i|all|every)\b)/i;
const ECHO_OR_POINTER = /\b(?:too|also|as well|either|it|this|that|these|those|them|they|here)\b/i;

/**
 * Where a preference lives: how the person wants to be answered, or an explicit "I prefer" about
 * themselves, is theirs everywhere; anything about code, tools or the project stays in the
 * project; a liking ("I love hiking") is kept locally, not pushed to every project.
 */
function preferenceScope(text: string, explicit: boolean): Scope {
  if (isWorkContent(text)) return 'project';
  if (ANSWER_STYLE.test(text) || explicit) return 'user';
  return 'project';
}

/** The object of "I like ..." is a reaction ("that", "how you ..."), an echo or about the other person. */
function reactionObject(rest: string, explicit: boolean): boolean {
  if (rest.length < 3 || REACTION_OBJECT.test(rest)) return true;
  if (/\byou\b/i.test(rest) && !ANSWER_STYLE.test(rest)) return true;
  if (/^(?:to\s+)?(?:you\s+to|if you)\b/i.test(rest)) return true; // "I'd rather you fix X first"
  if (/\b(?:his|her|their)\b/i.test(rest)) return true; // "I love their work": whose?
  return explicit ? POINTER_OBJECT.test(rest) : ECHO_OR_POINTER.test(rest);
}

/** "My favourite author is ...", "My preferred editor is ...". */
function statedFavourite(s: string): Proposal | null {
  const m = s.match(
    /^my\s+(?:preference|preferred\s+[\w -]{1,30}?|favou?rite\s+[\w -]{1,30}?)\s+(?:is|are)\s+(.{3,})$/i,
  );
  if (!m || REACTION_OBJECT.test(m[1]!)) return null;
  const text = endSentence(`User's ${thirdPerson(s.slice(3))}`);
  return { kind: 'preference', scope: preferenceScope(s, /^my\s+prefer/i.test(s)), confidence: 'high', text };
}

export const preference: Rule = (s) => {
  for (const [pattern, lead, explicit] of PERSONAL_VERBS) {
    const m = s.match(pattern);
    if (!m) continue;
    const rest = s.slice(m[0].length).trim();
    if (reactionObject(rest, explicit)) return null;
    // "I always use X" -> "User always uses X"
    const verbs = m[0].replace(/^i\s+/i, '').trim();
    const subject = lead || `User ${verbs.replace(/(\w+)$/, '$1s')} `;
    const text = endSentence(subject + thirdPerson(rest));
    return { kind: 'preference', scope: preferenceScope(rest, explicit), confidence: 'high', text };
  }
  return statedFavourite(s);
};

const ROLE_NOUN =
  /(?:developer|engineer|programmer|designer|scientist|researcher|student|teacher|professor|manager|architect|analyst|writer|consultant|founder|administrator|admin|maintainer|sre|devops|tester|freelancer|journalist|lawyer|doctor|nurse|accountant)s?\b/i;
type ProfileRule = [RegExp, Scope, Confidence, (m: RegExpMatchArray) => string];

/**
 * Who the person is. Name, pronouns, language, timezone and a working role (engineer, team
 * lead: content.ts) are theirs in every project; where they live, their employer or any other
 * occupation ("I work as a nurse") is kept locally.
 */
const PROFILE_RULES: ProfileRule[] = [
  [
    /^(?:please\s+)?(?:call me|you can call me|refer to me as|address me as)\s+([\p{L}][\p{L}'.-]*(?:\s+[\p{L}][\p{L}'.-]*){0,2})\s*[.!]?$/iu,
    'user',
    'high',
    (m) => `User wants to be called ${m[1]!.replace(/[.!]+$/, '')}.`,
  ],
  [
    /^[Mm]y name is\s+(\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*){0,3})\s*(?:[.!,;]|$|\s+(?:and|but)\b)/u,
    'user',
    'high',
    (m) => `User's name is ${m[1]}.`,
  ],
  [/^my pronouns are\s+([\p{L}/]+)/iu, 'user', 'high', (m) => `User's pronouns are ${m[1]}.`],
  [
    /^(?:my time ?zone is|i(?:'m| am) in the)\s+(.{2,40}?)(?:\s+time ?zone)?\s*[.!]?$/i,
    'user',
    'medium',
    (m) => `User's timezone is ${m[1]}.`,
  ],
  [
    /^(?:i(?:'m| am)\s+(?:based|located)\s+in|i live in)\s+(.{2,60}?)\s*[.!]?$/i,
    'project',
    'medium',
    (m) => `User is based in ${m[1]}.`,
  ],
  [
    /^(?:my native language is|my first language is)\s+([\p{L}]+)/iu,
    'user',
    'high',
    (m) => `User's native language is ${m[1]}.`,
  ],
  [/^i work (?:at|for)\s+(\p{Lu}.{1,60})$/u, 'project', 'medium', (m) => endSentence(`User works at ${m[1]}`)],
  [
    /^i\s+(lead|manage|run|head)\s+(?:the|a|our)\s+((?:[\w-]+\s+){0,3}(?:team|group|department|squad|lab))\b/i,
    'user',
    'medium',
    (m) => `User ${m[1]!.toLowerCase()}s the ${m[2]}.`,
  ],
];

/** "I'm a backend engineer", "I work as a nurse". */
function role(s: string): Proposal | null {
  const m = s.match(/^i(?:'m| am)\s+(?:a|an)\s+(.{2,80})$/i) ?? s.match(/^i work as\s+(?:a|an)\s+(.{2,80})$/i);
  const words = m?.[1]!.split(/\s+/).slice(0, 5).join(' ') ?? '';
  if (!m || !ROLE_NOUN.test(words)) return null;
  const text = endSentence(`User is a ${thirdPerson(m[1]!)}`);
  return { kind: 'profile', scope: WORK_ROLE.test(words) ? 'user' : 'project', confidence: 'medium', text };
}

export const profile: Rule = (s) => {
  for (const [pattern, scope, confidence, text] of PROFILE_RULES) {
    const m = s.match(pattern);
    if (m) return { kind: 'profile', scope, confidence, text: text(m) };
  }
  return role(s);
};

// A pronoun or an ordinal points at something said a moment ago: not durable on its own.
const POINTER = /\b(?:it|this|that|them|these|those)\b/i;
const DEICTIC =
  /^(?:that|this|it|them|those|these|yours|your (?:idea|suggestion|plan|version)|the (?:first|second|third|last|latter|former|other) (?:one|option)?|option\s*\w?|one|\d+)\b/i;

const DECISION_LEAD =
  /^(?:the decision is|decision:|we(?:'re| are) going with|we(?:'ll| will) go with|let'?s go with|let us go with|let'?s stick with|we(?:'ll| will) stick with|we(?:'re| are) standardi[sz]ing on|we standardi[sz]ed on|let'?s standardi[sz]e on|we(?:'re| are) switching to|we(?:'ll| will) switch to|let'?s switch to|let'?s move to|we(?:'re| are) moving to|we(?:'ll| will|'re going to| are going to) (?:use|adopt|keep using)|let'?s (?:use|adopt))(?=\s|$)/i;
// A decision names what was chosen: a name, a tool or a technical term, not "it" or "the other one".
const NAMED_CHOICE = /(?:^|\s)(?:\p{Lu}[\p{L}\d.+#-]*|[a-z]+[.-][a-z]+|\S*\d\S*)(?=[\s,.;:!]|$)/u;
// What follows a choice to justify it may hedge or compare; the choice itself may not.
const REASON =
  /\s*(?:,|—|–|-|\(|\bbecause\b|\bsince\b|\bas\b|\bso\b|\bgiven\b|\bover\b|\binstead of\b|\brather than\b|\bsince\b|\bwhich\b)/i;
// "we decided ..." may follow a short lead-in ("After the review we decided ..."), not a condition.
const DECISION_CLAUSE =
  /^((?:[\p{L}\d'-]+[ ,]+){0,5}?)(?:we(?:'ve| have)?|i(?:'ve| have)?|the team(?: has)?)\s+(?:decided|agreed|settled on|chosen|chose|picked|opted)\b/iu;

/** The part of a sentence before its reason or comparison: "use Zustand" in "use Zustand, since Redux ...". */
export function headClause(s: string): string {
  const m = REASON.exec(s.slice(3));
  return m ? s.slice(0, m.index + 3) : s;
}

/** "I decided to ..." is the user's own choice: written about User, and only when it names what. */
function personalDecision(s: string, leadIn: string, head: string): Proposal | null {
  if (POINTER.test(head)) return null;
  const about = `${leadIn}User${thirdPerson(s.slice(leadIn.length + 1))}`;
  return { kind: 'decision', scope: 'project', confidence: 'high', text: endSentence(capitalize(about)) };
}

/** "Let's go with ...", or "we decided ..." after a short lead-in that is not a condition. */
function decisionOpening(s: string): { m: RegExpMatchArray; lead: boolean } | null {
  const lead = s.match(DECISION_LEAD);
  if (lead) return { m: lead, lead: true };
  const clause = s.match(DECISION_CLAUSE);
  if (!clause || /\b(?:if|whether|unless|once|before|until|when)\b/i.test(clause[1]!)) return null;
  return { m: clause, lead: false };
}

export const decision: Rule = (s) => {
  const opening = decisionOpening(s);
  if (!opening) return null;
  const { m } = opening;
  const lead = opening.lead ? m : null;
  const clause = opening.lead ? null : m;
  const rest = s.slice(m[0].length).replace(/^\s*(?:to|that|on|for|:)?\s*/i, '');
  if (rest.length < 3 || DEICTIC.test(rest)) return null;
  const head = headClause(rest);
  if (HEDGE.test(head) || TRANSIENT.test(head)) return null;
  // "let's use X" alone is as often a one-off step as a decision: it must name a tool or term.
  const vague = !NAMED_CHOICE.test(head) && !TECHNICAL.test(head);
  if (lead && /\b(?:use|adopt)\b/i.test(lead[0]) && vague) return null;
  if (clause && /^i\b/i.test(s.slice(clause[1]!.length))) return personalDecision(s, clause[1]!, head);
  return { kind: 'decision', scope: 'project', confidence: 'high', text: endSentence(capitalize(s)) };
};

/**
 * "We <verb> ..." in the present tense is how the team works when the sentence names something
 * technical: "we squash merge PRs", "we host the API on Fly.io", "we log with pino". Not "we run
 * into errors" (what happened) nor "we test it" (a pointer to the moment).
 */
const WE_PRACTICE =
  /^we\s+(?:always|use|prefer|follow|name|write|keep|prefix|format|squash|rebase|tag|host|store|log|target|run|build|test|lint|bundle|ship|release|pin|track|publish|cache|version|document)\s+/i;

export const convention: Rule = (s) => {
  if (
    /^(?:our|the|my|this project's|the project's|the team's)\s+(?:[\w-]+\s+){0,3}conventions?\s+(?:is|are|says)\b/i.test(
      s,
    ) ||
    /^by convention\b/i.test(s)
  ) {
    return { kind: 'convention', scope: 'project', confidence: 'high', text: endSentence(capitalize(s)) };
  }
  if (
    /^(?:in|for|across)\s+(?:this|our|the)\s+(?:project|repo|repository|codebase|team|monorepo|workspace|code)\b[, ]+(?:we|all|every|each|the|our)\b/i.test(
      s,
    )
  ) {
    return { kind: 'convention', scope: 'project', confidence: 'high', text: endSentence(capitalize(s)) };
  }
  const practice = s.match(WE_PRACTICE);
  const done = practice ? s.slice(practice[0].length) : '';
  if (practice && TECHNICAL.test(s) && !DEICTIC.test(done) && !/^(?:into|out)\b/i.test(done)) {
    return { kind: 'convention', scope: 'project', confidence: 'medium', text: endSentence(capitalize(s)) };
  }
  if (
    /^(?:all|every|each)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:must|should|need to|needs to|has to|have to)\b/i.test(s) &&
    TECHNICAL.test(s)
  ) {
    const kind: FactKind = /\b(?:must|should) not\b|\bnever\b|\bcannot\b/i.test(s) ? 'constraint' : 'convention';
    return { kind, scope: 'project', confidence: 'high', text: endSentence(capitalize(s)) };
  }
  return null;
};

const CONSTRAINT_SUBJECT =
  /^(?:we|the (?:app|application|code|codebase|project|service|library|api|build|server|client|frontend|backend|cli|package|extension|site|website|system|tool)|it)\s+/i;
const CONSTRAINT_VERB =
  /^(?:must not|mustn't|must never|should never|cannot|can't|can not|may not|are not allowed to|is not allowed to|aren't allowed to|isn't allowed to|must)\s+(?:ever\s+)?(use|depend on|rely on|add|ship|upgrade|downgrade|touch|modify|break|expose|store|send|call|import|bundle|include|exceed|require|drop|remove|support|work|run|stay|remain|be|target|log|leak|block|change)\b/i;

export const constraint: Rule = (s) => {
  const subject = s.match(CONSTRAINT_SUBJECT);
  if (subject) {
    const rest = s.slice(subject[0].length);
    const verb = rest.match(CONSTRAINT_VERB);
    if (verb && (subject[0].trim().toLowerCase() !== 'it' || TECHNICAL.test(s))) {
      return { kind: 'constraint', scope: 'project', confidence: 'high', text: endSentence(capitalize(s)) };
    }
  }
  if (
    /^(?:we|the \w+)\s+only\s+support\b/i.test(s) ||
    /\b(?:is|are)\s+(?:not allowed|forbidden|prohibited|banned)\b/i.test(s)
  ) {
    return TECHNICAL.test(s)
      ? { kind: 'constraint', scope: 'project', confidence: 'high', text: endSentence(capitalize(s)) }
      : null;
  }
  return null;
};

/** The parts of a project a fact may be about. */
const PROJECT_PARTS =
  '(?:project|app|application|repo|repository|codebase|service|backend|frontend|api|server|website|site|cli|library|package|monorepo|product|stack|database|db|ci|pipeline|docs|documentation|tests?)';
const PROJECT_SUBJECT = new RegExp(
  `^(?:(?:the|this|our)\\s+)?${PROJECT_PARTS}\\s+(?:uses|is built (?:with|on)|is written in|runs on|is deployed (?:to|on)|deploys to|targets|depends on|is hosted on|is hosted at|lives in|lives at|live in|is (?:stored|kept) in)\\s+\\S`,
  'i',
);
const PROJECT_FACT =
  /^(?:(?:we|our team)\s+deploys?\s+(?:(?:the|our)\s+(?:[\w.-]+\s+){1,3}?)?(?:to|on|with|via|using)\s+\S|(?:production|prod|staging)\s+(?:runs on|is on|is hosted on|lives at|uses)\s+\S|(?:the|our)\s+(?:main|default|release)\s+branch\s+is\s+\S|(?:our|the)\s+(?:tests|ci|builds?)\s+runs?\s+(?:on|with|in)\s+\S)/i;

/** A name: capitalized ("PostgreSQL", "Go"), dotted or dashed ("next.js", "staging.example.com"), or with a digit ("node20"). */
const OPENS_WITH_NAME = /^(?:\p{Lu}[\p{L}\d.+#-]*|[a-z]+[.-][a-z]+|\p{L}*\d[\p{L}\d.]*|https?:\/\/\S+)(?=[\s,.;:!]|$)/u;
const namedAfter = (s: string, lead: RegExp): boolean => {
  const m = s.match(lead);
  return m !== null && OPENS_WITH_NAME.test(s.slice(m[0].length));
};

/**
 * "The database is PostgreSQL 16", "Our backend is a Go service", "The staging server is at
 * staging.example.com": a part of the project named as what it is or where it is. What follows
 * must open with a name, so a state ("the API is slow", "the site is down again") is no fact.
 */
const PROJECT_PART_IS = new RegExp(
  `^(?:the|our)\\s+(?:[\\w-]+\\s+){0,2}?(?:${PROJECT_PARTS}|url|endpoint|host|domain|port)\\s+(?:is|are)\\s+(?:(?:at|on|in)\\s+)?(?:(?:a|an|the)\\s+)?`,
  'i',
);

/**
 * "Migrations are written with Drizzle", "Auth is handled by Clerk": something technical said to
 * be done with a named or technical tool.
 */
const DONE_WITH =
  /^(?:(?:the|our)\s+)?(?:[\w-]+\s+){0,2}?[\w-]+\s+(?:is|are)\s+(?:written|handled|managed|stored|built|deployed|hosted|generated|tested|bundled|served|kept|configured|defined|tracked|linted|formatted|validated|documented)\s+(?:with|by|in|on|via|using|through)\s+/i;
const doneWithNamedTool = (s: string): boolean => {
  const m = s.match(DONE_WITH);
  if (!m || !(TECHNICAL.test(m[0]) || CODE_TASK.test(m[0]))) return false;
  const tool = s.slice(m[0].length);
  return OPENS_WITH_NAME.test(tool) || TECHNICAL.test(tool);
};

/** "We're on Node 20", "We are using Postgres": what the team runs, when it is named and technical. */
const WE_ARE_ON = /^we(?:'re| are)\s+(?:on|using|running)\s+/i;
const weAreOnNamed = (s: string): boolean => namedAfter(s, WE_ARE_ON) && TECHNICAL.test(s);

export const projectFact: Rule = (s) =>
  PROJECT_SUBJECT.test(s) ||
  PROJECT_FACT.test(s) ||
  namedAfter(s, PROJECT_PART_IS) ||
  doneWithNamedTool(s) ||
  weAreOnNamed(s)
    ? { kind: 'fact', scope: 'project', confidence: 'medium', text: endSentence(capitalize(s)) }
    : null;

/**
 * "Always ..." / "Never ..." / "From now on, ..." as standing instructions. `imperative` says
 * whether the word after always/never is a verb in its base form ("Never use ..."), which a
 * remark like "Never saw this coming" or "Always good chatting" is not.
 */
export function standingInstruction(rest: string, durable: boolean, imperative: boolean): Proposal | null {
  const m = rest.match(/^(?:please\s+)?(always|never|(?:do not|don'?t) ever)\s+(.{3,})$/i);
  if (!m && !durable) return null;
  if (m && (!imperative || /^(?:mind|fear|worry|hesitate|forget)\b/i.test(m[2]!))) return null; // "never mind"
  const text = endSentence(capitalize(rest.replace(/^please\s+/i, '')));
  const negative = m ? !/^always$/i.test(m[1]!) : /^(?:do not|don'?t|never)\b/i.test(rest);
  if (isWorkContent(rest)) {
    return { kind: negative ? 'constraint' : 'convention', scope: 'project', confidence: 'high', text };
  }
  // What is left addresses the assistant about the person: how to answer, greet or call them.
  if (!ANSWER_STYLE.test(rest) && !/\b(?:me|my|I)\b/.test(rest)) return null;
  return { kind: 'preference', scope: 'user', confidence: 'high', text };
}

/**
 * A rule for the code, said the way people set one ("we don't use classes in this codebase",
 * "write tests for every bug fix", "don't use default exports", "stop using semicolons"). An
 * instruction is as often the task at hand ("rename this variable", "run the tests now"), so it is
 * kept only when it names something technical, points at nothing in the moment (this, that, here,
 * now) and reads as general: said of "we", of every or each of something, everywhere, of the
 * codebase, or of a plural with no article ("default exports", "comments"). Not "all" ("format all
 * the files" is a step) nor "first" ("write the tests first" is an order, not a moment).
 */
const MOMENT =
  /\b(?:it|this(?!\s+(?:codebase|repo|repository|project|monorepo|team)\b)|that|these|those|them|here|now|yet|while|until)\b/i;
const WE_AVOID =
  /^we\s+(?:never|don'?t|do not)\s+(?:use|write|add|commit|push|merge|import|export|mutate|call|ship|deploy|store|log|allow|accept|support|put|rely on|depend on)\s+/i;
const GENERAL =
  /\b(?:every|each|everywhere|anywhere|throughout|in (?:this|the|our) (?:codebase|repo|repository|project|monorepo)|across (?:the|this|our) (?:codebase|repo|repository|project))\b/i;
const DO_GENERALLY =
  /^(?:please\s+)?(?:use|write|add|keep|prefer|put|name|format|make sure|ensure|avoid|document|test|wrap|prefix|sort)\s+/i;
const DO_NOT_PLURAL =
  /^(?:please\s+)?(?:don'?t|do not)\s+(?:use|add|write|commit|push|import|export|call|mutate|touch|edit|modify|leave|create|introduce|rely on|depend on)\s+(?!(?:the|a|an|my|your|our|any)\b)(?:[\w-]+\s+){0,2}?[\w-]+s\b/i;
const STOP_DOING = /^(?:please\s+)?stop\s+(?:using|adding|writing)\s+\S/i;

export const codeRule: Rule = (s) => {
  if (!TECHNICAL.test(s) || MOMENT.test(s)) return null;
  const text = endSentence(capitalize(s.replace(/^please\s+/i, '')));
  if (WE_AVOID.test(s) || DO_NOT_PLURAL.test(s) || STOP_DOING.test(s)) {
    return { kind: 'constraint', scope: 'project', confidence: 'high', text };
  }
  if (!DO_GENERALLY.test(s) || !GENERAL.test(s)) return null;
  const kind: FactKind = /^(?:please\s+)?avoid\b/i.test(s) ? 'constraint' : 'convention';
  return { kind, scope: 'project', confidence: 'high', text };
};

export const RULES: Rule[] = [profile, preference, decision, convention, constraint, projectFact, codeRule];

export function stripFillers(s: string): string {
  let current = s;
  for (let i = 0; i < 4; i++) {
    const next = current.replace(FILLER, '');
    if (next === current) break;
    current = next;
  }
  return current.replace(/\s*[;:,]+$/, '').trim();
}

export const isDoNotKeep = (text: string): boolean => DO_NOT_KEEP.test(text);

/**
 * The explicit statement in one sentence, if any; at most one. `imperative(word)` tells whether
 * a word is a verb in its base form (from the tagger; a regex cannot tell "use" from "saw").
 */
/** A question, a condition or a code block: never a statement to keep. */
const askedOrConditional = (s: string): boolean =>
  !s || s.endsWith('?') || QUESTION.test(s) || /`{3}/.test(s) || /^(?:if|when|unless|whether)\b/i.test(s);

export function proposeForSentence(raw: string, imperative: (word: string) => boolean = () => true): Proposal | null {
  let s = stripFillers(raw);
  if (askedOrConditional(s)) return null;
  const durable = DURABLE_PREFIX.test(s);
  if (durable) s = s.replace(DURABLE_PREFIX, '').trim();
  if (askedOrConditional(s)) return null;
  // A decision may carry a hedged reason ("... since Redux is probably overkill"); it checks its own head.
  const d = decision(s);
  if (d) return d;
  if (HEDGE.test(s) || TRANSIENT.test(s)) return null;
  const standing = s.match(/^(?:please\s+)?(?:always|never|(?:do not|don'?t) ever)\s+([\p{L}'-]+)/iu);
  if (durable || standing) {
    return preference(s) ?? profile(s) ?? standingInstruction(s, durable, !standing || imperative(standing[1]!));
  }
  for (const rule of RULES) {
    const p = rule(s);
    if (p) return p;
  }
  return null;
}
