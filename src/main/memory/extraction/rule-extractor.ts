import type { Confidence, FactKind, Scope } from '../../../shared/domain';
import { CODE_TASK, CODE_TOKEN, hangsOnPronoun } from './content';
import { analyze, loadEnglish, type Sentence } from './nlp';
import { personalStatements } from './personal';
import { isDoNotKeep, proposeForSentence } from './statement-rules';
import { MAX_CANDIDATES, type Candidate, type Extractor, type TranscriptEntry, type TranscriptWindow } from './types';

/**
 * The built-in extractor: offline, deterministic, precise rather than eager. It reads only what
 * the user said (and compaction summaries), one tagged sentence at a time, and keeps
 *  - explicit statements a pattern recognises (preferences, profile, decisions, conventions,
 *    constraints, project facts; see statement-rules.ts), and
 *  - durable first-person statements about the user's life and work (see personal.ts),
 * rewritten so they read correctly out of context. Nothing the assistant said is ever the
 * user's fact.
 */

interface Proposal {
  kind: FactKind;
  scope: Scope;
  confidence: Confidence;
  text: string;
  /** Explicit statements outrank personal ones when a window holds more than the cap. */
  priority: number;
  messageId: string;
  order: number;
}

/** A personal statement needs this much evidence of being about the user's life (see personal.ts). */
export const MIN_PERSONAL_STRENGTH = 2;
const EXPLICIT_PRIORITY = 10;

const RELATIVE_TIME =
  /\b(?:yesterday|today|tonight|tomorrow|last (?:night|week|weekend|month|year|summer|winter|spring|fall|autumn|mon|tue|tues|wed|thu|thurs|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|this (?:week|weekend|month|year|morning|evening|summer)|next (?:week|weekend|month|year)|(?:a|one|two|three|four|five|few|couple of) (?:days|weeks|months|years) ago|recently|lately|just now)\b/i;

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** "went to the meetup last week" only reads right with its date: "(said on 8 May 2023)". */
export function withDateIfRelative(text: string, createdAt: number | undefined): string {
  if (createdAt === undefined || !RELATIVE_TIME.test(text)) return text;
  const d = new Date(createdAt);
  const when = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  return `${text.replace(/[.!]+$/, '')} (said on ${when}).`;
}

/**
 * The built-in compaction summary quotes every message with its speaker ("- Assistant: ..."):
 * only the user's lines are the user's; the assistant's, tools' and the header are not.
 */
function summaryLines(text: string): string {
  return text
    .split(/\n+/)
    .filter((line) => !/^\s*(?:-\s*)?(?:assistant|tool output|system)\b[^:]{0,20}:/i.test(line))
    .filter((line) => !/^\s*summary of the earlier conversation\b/i.test(line))
    .map((line) => line.replace(/^\s*(?:-\s*)?(?:user|prior summary):\s*/i, ''))
    .join('\n');
}

function lineSentences(text: string): Sentence[] {
  return text
    .split(/\n+/)
    .map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim())
    .filter((line) => line.length >= 6)
    .flatMap((line) => analyze(line))
    .filter((s) => s.text.length >= 6 && s.text.length <= 400);
}

/**
 * "My name is Dana and I lead the mobile team" states two things: a sentence is split before
 * each coordinated "I", so every clause gets its own chance at an explicit rule.
 */
function coordinatedClauses(sentence: Sentence): Sentence[] {
  const pieces = sentence.text.split(/,?\s+(?:and|but|so)\s+(?=I\b)|;\s+/);
  return pieces.length === 1 ? [sentence] : pieces.flatMap((piece) => analyze(piece));
}

/**
 * Whether a word of the sentence can be an instruction's verb ("use", "force-push"): not a past
 * or -ing form ("saw"), nor an adjective, adverb or pronoun ("good chatting"). The tagger often
 * reads an imperative as a noun, so a noun passes.
 */
const imperativeIn =
  (sentence: Sentence) =>
  (word: string): boolean => {
    const head = word.toLowerCase().split('-')[0];
    const t = sentence.tokens.find((x) => x.lower === head);
    if (!t) return false;
    if (t.pos === 'VERB') return t.lower === t.lemma;
    return t.pos === 'NOUN' || t.pos === 'PROPN';
  };

function explicitIn(sentence: Sentence, entry: TranscriptEntry, order: { n: number }): Proposal[] {
  const out: Proposal[] = [];
  for (const clause of coordinatedClauses(sentence)) {
    const p = proposeForSentence(clause.text, imperativeIn(clause));
    if (!p) continue;
    const text = entry.role === 'user' ? withDateIfRelative(p.text, entry.createdAt) : p.text;
    out.push({ ...p, text, priority: EXPLICIT_PRIORITY, messageId: entry.messageId, order: order.n++ });
  }
  return out;
}

/**
 * "I fixed the bug in the parser", "I'm debugging the auth flow": what the user did to the code
 * is the session's state, not a fact about them; a stretch of time ("for five years") makes it one.
 */
const narratesCodeWork = (text: string) =>
  (CODE_TASK.test(text) || CODE_TOKEN.test(text)) && !/\b(?:for (?:\w+ )?(?:years|months)|since)\b/i.test(text);

function personalIn(sentence: Sentence, entry: TranscriptEntry, order: { n: number }): Proposal[] {
  return personalStatements(sentence)
    .filter((p) => p.strength >= MIN_PERSONAL_STRENGTH && !(p.kind === 'fact' && narratesCodeWork(p.text)))
    .map((p) => ({
      kind: p.kind,
      scope: 'project' as const,
      confidence: p.strength >= 3 ? ('medium' as const) : ('low' as const),
      text: withDateIfRelative(p.text, entry.createdAt),
      priority: p.strength,
      messageId: entry.messageId,
      order: order.n++,
    }));
}

function proposalsFor(entry: TranscriptEntry, order: { n: number }): Proposal[] {
  if (entry.role === 'assistant' || isDoNotKeep(entry.text)) return [];
  const out: Proposal[] = [];
  const text = entry.role === 'summary' ? summaryLines(entry.text) : entry.text;
  for (const sentence of lineSentences(text)) {
    const explicit = explicitIn(sentence, entry, order);
    if (explicit.length) out.push(...explicit);
    // Summaries are written about the user already; only the user's own words are first person.
    else if (entry.role === 'user') out.push(...personalIn(sentence, entry, order));
  }
  return out.filter((p) => p.text.length <= 500 && !hangsOnPronoun(p.text));
}

/**
 * Candidates for one window, English already loaded. When the window holds more than the cap,
 * explicit statements win over personal ones, then stronger over weaker, then newer over older;
 * what is kept comes back in transcript order.
 */
export function extractSync(window: Pick<TranscriptWindow, 'entries'>): Candidate[] {
  const order = { n: 0 };
  const seen = new Set<string>();
  const all: Proposal[] = [];
  for (const entry of window.entries) {
    for (const p of proposalsFor(entry, order)) {
      const key = p.text.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      all.push(p);
    }
  }
  return all
    .sort((a, b) => b.priority - a.priority || b.order - a.order)
    .slice(0, MAX_CANDIDATES)
    .sort((a, b) => a.order - b.order)
    .map(({ kind, scope, confidence, text, messageId }) => ({ kind, scope, confidence, text, messageId }));
}

export const ruleExtractor: Extractor = {
  name: 'rules',
  async extract(window: TranscriptWindow): Promise<Candidate[]> {
    await loadEnglish();
    return extractSync(window);
  },
};

export { loadEnglish };
