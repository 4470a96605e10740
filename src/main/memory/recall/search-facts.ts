import type { Db } from '../../store/db';
import type { FactRow as StoredFact } from '../../store/facts';
import type { Confidence, FactKind, Scope } from '../../../shared/domain';
import { ownerOf, type SessionScopes } from '../scope';
import { sessionPlacement } from '../../store/sessions';
import { evidenceRef } from '../citations';
import { FILLER_WORDS, queryTerms } from '../../text/tokenize';
import { findCandidates, mergeCandidates, type CandidateIndex, type TermLookup } from './fts';
import { citedEvidence } from '../../store/citations';
import { factToken, quoteToken } from '../../text/fact-index';
import { finalScore, queryMatcher, lexicalScore, termWeights, type LexicalMatch, type TermWeights } from './rank';
import { withPinned } from './pinned';
import { discountWidened, widenUnmatched, widenedWordsOf, withWidened } from './widen-terms';
import { normalizedText } from '../../../shared/whitespace';
import { candidateRows, storedScopes } from '../../store/recall-candidates';
import { confidenceOf, kindOf } from '../../store/fact-codes';
import type { ScopeRef } from '../../../shared/schemas';

/** Automatic recall (abstains, needs half the query covered) or explicit memory_search. */
export type RecallMode = 'automatic' | 'explicit';

export interface RankedFact {
  id: string;
  scope: Scope;
  scopeKey: string;
  kind: FactKind;
  text: string;
  confidence: Confidence;
  reinforcement: number;
  score: number;
  coverage: number;
  matched: string[];
  citation: FactCitation;
}

/**
 * Where a recalled fact came from: the session and message of one evidence row, and the opaque
 * ref of that row (see memory/citations.ts). `inTeam` says the cited session belongs to the
 * asking session's own team: only then may text shown to a model (the recall block) name it.
 */
export interface FactCitation {
  sessionId: string | null;
  messageId: string | null;
  ref: string | null;
  inTeam: boolean;
}

export interface FactSearchResult {
  facts: RankedFact[];
  abstained: boolean;
  /** Why nothing was searched, when abstained. */
  reason: string | null;
}

/** The recall query: whitespace collapsed, at most 500 characters. */
export const QUERY_MAX_CHARS = 500;
export const recallQueryText = (text: string): string => normalizedText(text).slice(0, QUERY_MAX_CHARS);

const FACT_INDEX: CandidateIndex = { table: 'memory_facts_fts', newestFirst: 'DESC' };

/** Candidate caps: at most 380 rows to rank. */
const CANDIDATES = { perTermCap: 30, deepCap: 200, maxTerms: 8, budget: 180 };

type FactRow = Pick<
  StoredFact,
  'seq' | 'id' | 'scope' | 'scope_key' | 'kind' | 'text' | 'confidence' | 'reinforcement'
>;

/** The candidates' rows, placed in their visible scope (a row of any other scope is dropped). */
function factRows(db: Db, seqs: readonly number[], stored: readonly { id: number; ref: ScopeRef }[]): FactRow[] {
  const scopeOf = new Map(stored.map((s) => [s.id, s.ref]));
  const rows: FactRow[] = [];
  for (const [seq, id, scopeId, kind, text, confidence, reinforcement] of candidateRows(db, seqs)) {
    const scope = scopeOf.get(scopeId);
    if (!scope) continue;
    rows.push({
      seq,
      id,
      scope: scope.scope,
      scope_key: scope.key,
      kind: kindOf(kind),
      text,
      confidence: confidenceOf(confidence),
      reinforcement,
    });
  }
  return rows;
}

export function abstainReason(meaningful: readonly string[]): string | null {
  if (meaningful.length === 0) return 'no content words';
  if (meaningful.every((t) => FILLER_WORDS.has(t))) return 'generic prompt';
  if (meaningful.length < 2) return 'fewer than two content words';
  return null;
}

/**
 * Scoped semantic facts for a query. Only the session's visible scopes are searched (inside the
 * index, before ranking); only active facts are returned.
 */
export function searchFacts(
  db: Db,
  scopes: SessionScopes,
  rawQuery: string,
  options: { mode: RecallMode; limit: number },
): FactSearchResult {
  const text = recallQueryText(rawQuery);
  const terms = queryTerms(text);
  if (options.mode === 'automatic') {
    const reason = abstainReason(terms.meaningful);
    if (reason) return { facts: [], abstained: true, reason };
  }
  const typed = terms.meaningful.length ? terms.meaningful : terms.all;
  if (typed.length === 0) return { facts: [], abstained: false, reason: null };

  const stored = storedScopes(db, scopes.visible);
  const { query, sequence, candidates, widenedWords } = findWidened(db, stored, typed, terms.sequence, options.mode);
  const rowids = withPinned(
    db,
    candidates.rowids,
    stored.map((s) => s.id),
  );
  if (rowids.length === 0) return { facts: [], abstained: false, reason: null };
  const rows = factRows(db, rowids, stored);

  const documents = stored.reduce((n, s) => n + s.facts, 0);
  const match = queryMatcher(query, sequence);
  const matches = rows.map((r) => [r, match(r.text)] as const);
  const weights = factTermWeights(
    query,
    matches.map(([, m]) => m),
    candidates.termHits,
    documents,
  );
  discountWidened(weights.weight, widenedWords, (t) => (candidates.termHits.get(t) ?? 0) > 0);

  // Every candidate is scored; only the ones returned are built into results.
  const scored: { r: FactRow; m: LexicalMatch; score: number }[] = [];
  for (const [r, m] of matches) {
    if (!keep(m, options.mode)) continue;
    const score = finalScore({
      lexical: lexicalScore(m, weights),
      scope: r.scope,
      confidence: r.confidence,
      reinforcement: r.reinforcement,
    });
    scored.push({ r, m, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.r.id < b.r.id ? -1 : a.r.id > b.r.id ? 1 : 0));
  const best = scored.slice(0, options.limit);
  const citations = citationsOf(
    db,
    best.map(({ r }) => r.seq),
    scopes,
  );
  const top = best.map(({ r, m, score }) => rankedFact(r, m, score, citations.get(r.seq) ?? NO_CITATION));
  return { facts: top, abstained: false, reason: null };
}

/**
 * The candidates of the typed terms; in an explicit search, when a term finds none, those of the
 * visible word it is widened to (see widen-terms.ts) are added, and the terms are as widened.
 * Automatic recall puts facts in front of the model unasked, so it ranks only the words as typed
 * (folded): a guess at what a word meant is for a search someone asked for.
 */
function findWidened(
  db: Db,
  stored: readonly { id: number }[],
  typed: string[],
  typedSequence: string[],
  mode: RecallMode,
) {
  const lookup = scopedLookup(stored);
  const candidates = findCandidates(db, FACT_INDEX, lookup, typed, CANDIDATES);
  const asTyped = { query: typed, sequence: typedSequence, candidates, widenedWords: new Set<string>() };
  if (mode === 'automatic') return asTyped;
  const widened = widenUnmatched(
    db,
    typed,
    candidates.termHits,
    stored.map((s) => s.id),
    lookup,
  );
  if (!widened) return asTyped;
  const widenedWords = widenedWordsOf(typed, widened);
  return {
    query: withWidened(typed, widened),
    sequence: typedSequence.map((t) => widened.get(t) ?? t),
    candidates: mergeCandidates(candidates, findCandidates(db, FACT_INDEX, lookup, [...widenedWords], CANDIDATES)),
    widenedWords,
  };
}

/**
 * idf over the visible facts: a term's document frequency is its count in the index lookup
 * (exact below the cap), or the candidates holding it when that is more.
 */
function factTermWeights(
  query: readonly string[],
  matches: readonly LexicalMatch[],
  termHits: ReadonlyMap<string, number>,
  documents: number,
): TermWeights {
  const documentFrequency = new Map<string, number>();
  for (const q of query) {
    const counted = matches.reduce((n, m) => n + ((m.counts.get(q) ?? 0) > 0 ? 1 : 0), 0);
    documentFrequency.set(q, Math.max(counted, termHits.get(q) ?? 0));
  }
  const averageLength = matches.length ? matches.reduce((n, m) => n + m.length, 0) / matches.length : 1;
  return termWeights(documentFrequency, documents, averageLength);
}

function rankedFact(r: FactRow, m: LexicalMatch, score: number, citation: FactCitation): RankedFact {
  return {
    id: r.id,
    scope: r.scope,
    scopeKey: r.scope_key,
    kind: r.kind,
    text: r.text,
    confidence: r.confidence,
    reinforcement: r.reinforcement,
    score,
    coverage: m.coverage,
    matched: m.matched,
    citation,
  };
}

function keep(m: LexicalMatch, mode: RecallMode): boolean {
  if (m.overlap <= 0) return false;
  return mode === 'explicit' || m.coverage >= 0.5;
}

/** A term in any of the scopes: one exact token per scope (see fact-index.ts). */
function scopedLookup(stored: readonly { id: number }[]): TermLookup {
  if (stored.length === 0) return () => null;
  return (term) => stored.map((s) => quoteToken(factToken(s.id, term))).join(' OR ');
}

const NO_CITATION: FactCitation = Object.freeze({ sessionId: null, messageId: null, ref: null, inTeam: false });

/**
 * The evidence each fact is cited with, for all the returned facts in one query: the session's
 * own team's evidence when a fact has some (the most local provenance), otherwise the evidence
 * that first established it.
 */
function citationsOf(db: Db, factSeqs: readonly number[], scopes: SessionScopes): Map<number, FactCitation> {
  const out = new Map<number, FactCitation>();
  if (factSeqs.length === 0) return out;
  const rows = citedEvidence(db, factSeqs, [scopes.owner.id, scopes.session.id]);
  const inTeam = new Map<string, boolean>();
  for (const { factSeq, ...cited } of rows) {
    let team = inTeam.get(cited.sessionId);
    if (team === undefined) inTeam.set(cited.sessionId, (team = inTeamOf(db, cited.sessionId, scopes)));
    out.set(factSeq, { ...cited, ref: evidenceRef(db, factSeq, cited), inTeam: team });
  }
  return out;
}

/** Whether a session belongs to the asking session's team (same top-level owner). */
function inTeamOf(db: Db, sessionId: string, scopes: SessionScopes): boolean {
  if (sessionId === scopes.owner.id || sessionId === scopes.session.id) return true;
  const session = sessionPlacement(db, sessionId);
  return session !== undefined && ownerOf(db, session, sessionPlacement).id === scopes.owner.id;
}
