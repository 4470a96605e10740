import type { Confidence, FactKind, Scope } from '../../../shared/domain';
import { MAX_CANDIDATES, type Candidate, type Extractor, type TranscriptEntry, type TranscriptWindow } from './types';

/**
 * The built-in extractor: offline, deterministic, precise rather than eager. It reads only what
 * the user said (and compaction summaries), one sentence at a time, and keeps a sentence only
 * when it is an explicit durable statement: a preference or profile fact, a decision, a
 * convention, a constraint or a stable project fact. Questions, hedges, one-off requests,
 * anything time-bound ("today", "for now") and anything the user asked not to keep yield nothing.
 */

interface Proposal {
  kind: FactKind;
  scope: Scope;
  confidence: Confidence;
  text: string;
}

type Rule = (sentence: string) => Proposal | null;

const TECHNICAL =
  /\b(?:code|coding|tests?|testing|unit tests?|commits?|branch(?:es)?|merges?|pull requests?|PRs?|lint(?:er|ing)?|builds?|deploy(?:s|ments?)?|releases?|functions?|methods?|class(?:es)?|variables?|files?|folders?|director(?:y|ies)|modules?|imports?|types?|typescript|javascript|python|rust|golang|java|kotlin|swift|sql|database|db|schemas?|migrations?|apis?|endpoints?|servers?|clients?|components?|packages?|dependenc(?:y|ies)|npm|pnpm|yarn|bun|docker|kubernetes|ci|repo(?:sitory)?|librar(?:y|ies)|frameworks?|semicolons?|tabs|spaces|indentation|naming|camel ?case|snake_case|kebab-case|logging|logs?|errors?|exceptions?|async|await|promises?|git|main|master|staging|production|prod|config(?:uration)?|env(?:ironment)?|quer(?:y|ies)|tables?|columns?|indexes|css|html|react|vue|svelte|node(?:\.js)?|scripts?|formatting|prettier|eslint|docstrings?|comments?|makefile|cargo|pip|poetry|webpack|vite|json|yaml|tsconfig|linux|windows|macos|postgres(?:ql)?|sqlite|mysql|redis|http|rest|graphql|grpc|tailwind|monorepo|changelog|semver|versions?)\b/i;

const FILLER =
  /^(?:ok(?:ay)?|so|also|and|but|alright|right|great|cool|well|btw|by the way|fyi|oh|hey|hi|note|one more thing|just so you know|for the record|please note(?: that)?|note that|remember(?: that)?|please remember(?: that)?|keep in mind(?: that)?|important(?:ly)?|for context)\b[,:;]?\s*/i;

const QUESTION =
  /^(?:what|why|how|when|where|who|whom|which|whose|can (?:you|we|i)|could (?:you|we|i)|would (?:you|we|it)|will (?:you|we|it)|do (?:you|we|i)|does|did|is (?:it|this|that|there)|are (?:you|we|there|these)|shall|should (?:i|we)|any idea|have you|has anyone)\b/i;

const HEDGE =
  /\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|i suppose|not sure|unsure|i wonder|what if|hypothetically|for example|for instance|e\.g\.|let me know|if you (?:want|like|can)|wondering|considering|thinking about|would it be)\b/i;

const TRANSIENT =
  /\b(?:today|tonight|tomorrow|yesterday|right now|now|for now|this time|just this once|this once|for this (?:task|one|answer|question|message|file|change|pr|commit|session)|at the moment|currently|this morning|this afternoon|this evening|this week|temporarily|for the moment|next week|soon|later|asap|in a minute|first)\b/i;

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

const PERSONAL_VERBS: [RegExp, string][] = [
  [/^i\s+(?:really\s+|strongly\s+|generally\s+|usually\s+|always\s+)?prefer\s+/i, 'User prefers '],
  [/^i(?:'d| would)\s+(?:much\s+)?rather\s+/i, 'User would rather '],
  [/^i\s+(?:really\s+)?(?:like|love|enjoy)\s+/i, 'User likes '],
  [/^i\s+(?:really\s+)?(?:hate|dislike|can'?t stand|don'?t like|do not like)\s+/i, 'User dislikes '],
  [/^i\s+always\s+(?:want|need|use|write|work|read)\s+/i, ''],
  [/^i\s+never\s+(?:want|use|write|work|read)\s+/i, ''],
];

// "I like this answer" or "I love it" is a reaction to the moment, not a preference.
const REACTION_OBJECT =
  /^(?:this|that|it|these|those|your|yours|the (?:answer|reply|response|idea|result|change|fix|plan|suggestion)|how you|what you|when you)\b/i;

const preference: Rule = (s) => {
  for (const [pattern, lead] of PERSONAL_VERBS) {
    const m = s.match(pattern);
    if (!m) continue;
    const rest = s.slice(m[0].length).trim();
    if (rest.length < 3 || REACTION_OBJECT.test(rest)) return null;
    if (/^(?:to\s+)?(?:you\s+to|if you)\b/i.test(rest)) return null; // "I'd rather you fix X first"
    // "I always use X" -> "User always uses X"
    const subject =
      lead ||
      `User ${m[0]
        .replace(/^i\s+/i, '')
        .trim()
        .replace(/(\w+)$/, '$1s')} `;
    const text = subject + thirdPerson(rest);
    return { kind: 'preference', scope: 'user', confidence: 'high', text: endSentence(text) };
  }
  const m = s.match(
    /^my\s+(?:preference|preferred\s+[\w -]{1,30}?|favou?rite\s+[\w -]{1,30}?)\s+(?:is|are)\s+(.{3,})$/i,
  );
  if (m) return { kind: 'preference', scope: 'user', confidence: 'high', text: endSentence(`User's ${s.slice(3)}`) };
  return null;
};

const ROLE_NOUN =
  /(?:developer|engineer|programmer|designer|scientist|researcher|student|teacher|professor|manager|architect|analyst|writer|consultant|founder|administrator|admin|maintainer|sre|devops|tester|freelancer|journalist|lawyer|doctor|nurse|accountant)s?\b/i;

const profile: Rule = (s) => {
  let m = s.match(
    /^(?:please\s+)?(?:call me|you can call me|refer to me as|address me as)\s+([\p{L}][\p{L}'.-]*(?:\s+[\p{L}][\p{L}'.-]*){0,2})\s*[.!]?$/iu,
  );
  if (m)
    return {
      kind: 'profile',
      scope: 'user',
      confidence: 'high',
      text: `User wants to be called ${m[1]!.replace(/[.!]+$/, '')}.`,
    };
  m = s.match(/^[Mm]y name is\s+(\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*){0,3})\s*[.!]?$/u);
  if (m) return { kind: 'profile', scope: 'user', confidence: 'high', text: `User's name is ${m[1]}.` };
  m = s.match(/^my pronouns are\s+([\p{L}/]+)/iu);
  if (m) return { kind: 'profile', scope: 'user', confidence: 'high', text: `User's pronouns are ${m[1]}.` };
  m = s.match(/^(?:my time ?zone is|i(?:'m| am) in the)\s+(.{2,40}?)(?:\s+time ?zone)?\s*[.!]?$/i);
  if (m) return { kind: 'profile', scope: 'user', confidence: 'medium', text: `User's timezone is ${m[1]}.` };
  m = s.match(/^i(?:'m| am)\s+(?:based|located)\s+in\s+(.{2,60}?)\s*[.!]?$|^i live in\s+(.{2,60}?)\s*[.!]?$/i);
  if (m) return { kind: 'profile', scope: 'user', confidence: 'medium', text: `User is based in ${m[1] ?? m[2]}.` };
  m = s.match(/^(?:my native language is|my first language is)\s+([\p{L}]+)/iu);
  if (m) return { kind: 'profile', scope: 'user', confidence: 'high', text: `User's native language is ${m[1]}.` };
  const roleMatch = s.match(/^i(?:'m| am)\s+(?:a|an)\s+(.{2,80})$/i) ?? s.match(/^i work as\s+(?:a|an)\s+(.{2,80})$/i);
  if (roleMatch && ROLE_NOUN.test(roleMatch[1]!.split(/\s+/).slice(0, 5).join(' '))) {
    return {
      kind: 'profile',
      scope: 'user',
      confidence: 'medium',
      text: endSentence(`User is a ${thirdPerson(roleMatch[1]!)}`),
    };
  }
  m = s.match(/^i work (?:at|for)\s+(\p{Lu}.{1,60})$/u);
  if (m) return { kind: 'profile', scope: 'user', confidence: 'medium', text: endSentence(`User works at ${m[1]}`) };
  return null;
};

// A pronoun or an ordinal points at something said a moment ago: not durable on its own.
const DEICTIC =
  /^(?:that|this|it|them|those|these|yours|your (?:idea|suggestion|plan|version)|the (?:first|second|third|last|latter|former|other) (?:one|option)?|option\s*\w?|one|\d+)\b/i;

const DECISION_LEAD =
  /^(?:the decision is|decision:|we(?:'re| are) going with|we(?:'ll| will) go with|let'?s go with|let us go with|we(?:'re| are) standardi[sz]ing on|we standardi[sz]ed on)(?=\s|$)/i;
// "we decided ..." may follow a short lead-in ("After the review we decided ..."), not a condition.
const DECISION_CLAUSE =
  /^((?:[\p{L}\d'-]+[ ,]+){0,5}?)(?:we(?:'ve| have)?|i(?:'ve| have)?|the team(?: has)?)\s+(?:decided|agreed|settled on|chosen|chose|picked|opted)\b/iu;

const decision: Rule = (s) => {
  const lead = s.match(DECISION_LEAD);
  const clause = lead ? null : s.match(DECISION_CLAUSE);
  if (clause && /\b(?:if|whether|unless|once|before|until|when)\b/i.test(clause[1]!)) return null;
  const m = lead ?? clause;
  if (!m) return null;
  const rest = s.slice(m[0].length).replace(/^\s*(?:to|that|on|for|:)?\s*/i, '');
  if (rest.length < 3 || DEICTIC.test(rest)) return null;
  return { kind: 'decision', scope: 'project', confidence: 'high', text: endSentence(capitalize(s)) };
};

const convention: Rule = (s) => {
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
  const we = s.match(/^we\s+(?:always|use|prefer|follow|name|write|keep|prefix|format|squash|rebase|tag)\s+/i);
  if (we && TECHNICAL.test(s) && !DEICTIC.test(s.slice(we[0].length))) {
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

const constraint: Rule = (s) => {
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

const PROJECT_SUBJECT =
  /^(?:the|this|our)\s+(?:project|app|application|repo|repository|codebase|service|backend|frontend|api|server|website|site|cli|library|package|monorepo|product|stack|database|db|ci|pipeline|docs|documentation|tests?)\s+(?:uses|is built (?:with|on)|is written in|runs on|is deployed (?:to|on)|deploys to|targets|depends on|is hosted on|is hosted at|lives in|lives at|is (?:stored|kept) in)\s+\S/i;
const PROJECT_FACT =
  /^(?:(?:we|our team)\s+deploys?\s+(?:to|on|with|via)\s+\S|(?:production|prod|staging)\s+(?:runs on|is on|is hosted on|lives at|uses)\s+\S|(?:the|our)\s+(?:main|default|release)\s+branch\s+is\s+\S|(?:our|the)\s+(?:tests|ci|builds?)\s+runs?\s+(?:on|with|in)\s+\S)/i;

const projectFact: Rule = (s) =>
  PROJECT_SUBJECT.test(s) || PROJECT_FACT.test(s)
    ? { kind: 'fact', scope: 'project', confidence: 'medium', text: endSentence(capitalize(s)) }
    : null;

/** "Always ..." / "Never ..." / "From now on, ..." as standing instructions. */
function standingInstruction(rest: string, durable: boolean): Proposal | null {
  const m = rest.match(/^(?:please\s+)?(always|never|(?:do not|don'?t) ever)\s+(.{3,})$/i);
  if (!m && !durable) return null;
  if (m && /^(?:mind|fear|worry|hesitate|forget)\b/i.test(m[2]!)) return null; // "never mind"
  const text = endSentence(capitalize(rest.replace(/^please\s+/i, '')));
  const negative = m ? !/^always$/i.test(m[1]!) : /^(?:do not|don'?t|never)\b/i.test(rest);
  if (TECHNICAL.test(rest)) {
    return { kind: negative ? 'constraint' : 'convention', scope: 'project', confidence: 'high', text };
  }
  return { kind: 'preference', scope: 'user', confidence: 'high', text };
}

const RULES: Rule[] = [profile, preference, decision, convention, constraint, projectFact];

function sentencesOf(text: string): string[] {
  return text
    .split(/\n+/)
    .map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim())
    .flatMap((line) => line.split(/(?<=[.!?;])\s+(?=[\p{Lu}"'(\[])/u))
    .map((s) => s.trim())
    .filter((s) => s.length >= 6 && s.length <= 400);
}

function stripFillers(s: string): string {
  let current = s;
  for (let i = 0; i < 4; i++) {
    const next = current.replace(FILLER, '');
    if (next === current) break;
    current = next;
  }
  return current.replace(/\s*[;:,]+$/, '').trim();
}

/** Proposals for one sentence; at most one. Exported for the labelled-set tests. */
export function proposeForSentence(raw: string): Proposal | null {
  let s = stripFillers(raw);
  if (!s || s.endsWith('?') || QUESTION.test(s) || HEDGE.test(s) || /`{3}/.test(s)) return null;
  const durable = DURABLE_PREFIX.test(s);
  if (durable) s = s.replace(DURABLE_PREFIX, '').trim();
  if (TRANSIENT.test(s) || /^if\b|^when\b|^unless\b/i.test(s)) return null;
  if (durable || /^(?:please\s+)?(?:always|never|(?:do not|don'?t) ever)\b/i.test(s)) {
    const personal = preference(s) ?? profile(s);
    if (personal) return personal;
    return standingInstruction(s, durable);
  }
  for (const rule of RULES) {
    const p = rule(s);
    if (p) return p;
  }
  return null;
}

function proposalsFor(entry: TranscriptEntry): Proposal[] {
  if (entry.role === 'assistant') return [];
  if (DO_NOT_KEEP.test(entry.text)) return [];
  const out: Proposal[] = [];
  for (const sentence of sentencesOf(entry.text)) {
    const p = proposeForSentence(sentence);
    if (p && p.text.length <= 500) out.push(p);
  }
  return out;
}

export const ruleExtractor: Extractor = {
  name: 'rules',
  async extract(window: TranscriptWindow): Promise<Candidate[]> {
    return extractSync(window);
  },
};

/** The same work without the promise, for the benchmark and the labelled set. */
export function extractSync(window: Pick<TranscriptWindow, 'entries'>): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  // Newest statements win when a window holds more than the cap: later ones supersede.
  for (let i = window.entries.length - 1; i >= 0 && out.length < MAX_CANDIDATES; i--) {
    const entry = window.entries[i]!;
    for (const p of proposalsFor(entry).reverse()) {
      const key = p.text.toLowerCase();
      if (seen.has(key) || out.length >= MAX_CANDIDATES) continue;
      seen.add(key);
      out.push({ ...p, messageId: entry.messageId });
    }
  }
  return out.reverse();
}
