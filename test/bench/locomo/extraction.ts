/**
 * Extraction quality on LoCoMo, measured through the engine's real path: `extraction.run` over
 * every session's cursor until no window is left, then the stored facts and their evidence read
 * back through `facts.list` / `facts.get`. What is scored is what a user would get.
 *
 * Gold turns G = the dia_ids cited by speaker_a's observations. F = stored facts whose evidence
 * message is a turn. Precision = share of F whose evidence turn is in G; coverage = share of G
 * cited by at least one fact; user-scope junk = user-scope facts whose evidence is not in G.
 */
import { performance } from 'node:perf_hooks';
import { goldUserTurns, type LoadedConversation, type LocomoSample, type RunCommand } from './dataset';
import type { FactRecallFigures } from './fact-recall';

export interface ConversationForExtraction {
  sample: LocomoSample;
  loaded: LoadedConversation;
  /** Runs a contract command against this conversation's own engine / data home. */
  run: RunCommand;
}

export interface StoredFactSample {
  diaId: string | null;
  gold: boolean;
  scope: string;
  kind: string;
  text: string;
}

export interface ExtractionFigures {
  id: string;
  goldTurns: number;
  /** Every fact stored by extraction, whatever its evidence. */
  factsStored: number;
  /** Facts whose evidence message is a turn (F). */
  turnFacts: number;
  correct: number;
  precision: number;
  covered: number;
  coverage: number;
  userScopeFacts: number;
  userScopeJunk: number;
  messagesRead: number;
  windows: number;
  extractMs: number;
  messagesPerSecond: number;
  byKind: Record<string, number>;
  byScope: Record<string, number>;
  /** Every stored fact with its evidence turn, for inspection (`--show`); never written anywhere. */
  facts: StoredFactSample[];
  /** Gold turns no fact cites. */
  missed: string[];
  /** What the facts give back on the conversation's questions (see fact-recall.ts), when measured. */
  recall?: FactRecallFigures;
}

export interface ExtractionReport {
  perConversation: ExtractionFigures[];
  overall: ExtractionFigures;
}

const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
const bump = (m: Record<string, number>, k: string) => void (m[k] = (m[k] ?? 0) + 1);

/** Runs extraction over every session of one loaded conversation (all windows) and times it. */
async function extractAll(c: ConversationForExtraction) {
  let messagesRead = 0;
  let windows = 0;
  const t0 = performance.now();
  for (const sessionId of c.loaded.sessionIds) {
    for (let round = 0; round < 100; round++) {
      const r = await c.run('extraction.run', { sessionId });
      if (r.outcome === 'failed' || r.outcome === 'refused') {
        throw new Error(`extraction.run ${sessionId}: ${r.outcome} ${r.error ?? JSON.stringify(r.refusal)}`);
      }
      messagesRead += r.messagesRead;
      windows += r.windows;
      if (!r.behind) break;
    }
  }
  return { messagesRead, windows, extractMs: performance.now() - t0 };
}

async function storedFacts(run: RunCommand) {
  const out: { scope: string; kind: string; text: string; origin: string; messageIds: string[] }[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const list = await run('facts.list', { limit: 500, sort: 'recency', ...(cursor ? { cursor } : {}) });
    for (const f of list.facts) {
      const full = await run('facts.get', { factId: f.id });
      out.push({
        scope: f.scope,
        kind: f.kind,
        text: f.text,
        origin: f.origin,
        messageIds: full.evidence.map((e: { messageId: string | null }) => e.messageId).filter(Boolean),
      });
    }
    cursor = list.nextCursor ?? undefined;
    if (!cursor) break;
  }
  return out.filter((f) => f.origin === 'extraction');
}

/** Scores one conversation; its sessions must not have been extracted yet. */
export async function measureConversation(c: ConversationForExtraction): Promise<ExtractionFigures> {
  const gold = goldUserTurns(c.sample);
  const timing = await extractAll(c);
  const facts = await storedFacts(c.run);
  const covered = new Set<string>();
  const figures: ExtractionFigures = {
    id: c.sample.sample_id,
    goldTurns: gold.size,
    factsStored: facts.length,
    turnFacts: 0,
    correct: 0,
    precision: 0,
    covered: 0,
    coverage: 0,
    userScopeFacts: 0,
    userScopeJunk: 0,
    ...timing,
    messagesPerSecond: ratio(timing.messagesRead, timing.extractMs / 1000),
    byKind: {},
    byScope: {},
    facts: [],
    missed: [],
  };
  for (const f of facts) {
    const diaIds = f.messageIds.map((id) => c.loaded.diaIdOf.get(id)).filter((d): d is string => !!d);
    const isGold = diaIds.some((d) => gold.has(d));
    bump(figures.byKind, f.kind);
    bump(figures.byScope, f.scope);
    if (f.scope === 'user') figures.userScopeFacts++;
    if (f.scope === 'user' && !isGold) figures.userScopeJunk++;
    figures.facts.push({ diaId: diaIds[0] ?? null, gold: isGold, scope: f.scope, kind: f.kind, text: f.text });
    if (diaIds.length === 0) continue;
    figures.turnFacts++;
    if (isGold) figures.correct++;
    for (const d of diaIds) if (gold.has(d)) covered.add(d);
  }
  figures.covered = covered.size;
  figures.precision = ratio(figures.correct, figures.turnFacts);
  figures.coverage = ratio(covered.size, gold.size);
  figures.missed = [...gold].filter((d) => !covered.has(d));
  return figures;
}

/** Sums conversations into one row (precision and coverage micro-averaged over facts and turns). */
export function combine(id: string, rows: ExtractionFigures[]): ExtractionFigures {
  const sum = (k: keyof ExtractionFigures) => rows.reduce((n, r) => n + (r[k] as number), 0);
  const merge = (k: 'byKind' | 'byScope') =>
    rows.reduce<Record<string, number>>((m, r) => {
      for (const [key, n] of Object.entries(r[k])) m[key] = (m[key] ?? 0) + n;
      return m;
    }, {});
  const extractMs = sum('extractMs');
  return {
    id,
    goldTurns: sum('goldTurns'),
    factsStored: sum('factsStored'),
    turnFacts: sum('turnFacts'),
    correct: sum('correct'),
    precision: ratio(sum('correct'), sum('turnFacts')),
    covered: sum('covered'),
    coverage: ratio(sum('covered'), sum('goldTurns')),
    userScopeFacts: sum('userScopeFacts'),
    userScopeJunk: sum('userScopeJunk'),
    messagesRead: sum('messagesRead'),
    windows: sum('windows'),
    extractMs,
    messagesPerSecond: ratio(sum('messagesRead'), extractMs / 1000),
    byKind: merge('byKind'),
    byScope: merge('byScope'),
    facts: rows.flatMap((r) => r.facts),
    missed: rows.flatMap((r) => r.missed),
  };
}

/** Runs extraction over every conversation, in order, and scores each and all together. */
export async function measureExtraction(conversations: ConversationForExtraction[]): Promise<ExtractionReport> {
  const perConversation: ExtractionFigures[] = [];
  for (const c of conversations) perConversation.push(await measureConversation(c));
  return { perConversation, overall: combine('overall', perConversation) };
}

/** One printed line per row: the figures the bench README defines, plus volume and speed. */
export function formatFigures(r: ExtractionFigures): string {
  const kinds = Object.entries(r.byKind)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return (
    `${r.id.padEnd(10)} precision ${r.precision.toFixed(3)} (${r.correct}/${r.turnFacts})  ` +
    `coverage ${r.coverage.toFixed(3)} (${r.covered}/${r.goldTurns})  ` +
    `user-scope junk ${r.userScopeJunk} (of ${r.userScopeFacts} user-scope)  ` +
    `facts ${r.factsStored} [${kinds || 'none'}]  ` +
    `${Math.round(r.messagesPerSecond).toLocaleString('en')} messages/s (${r.messagesRead} messages, ${r.windows} windows, ${Math.round(r.extractMs)} ms)`
  );
}
