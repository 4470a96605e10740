import type { Confidence, Scope } from '../../../shared/domain';
import { STOP_WORDS, rawTokens, normalizeToken } from './tokenize';

/**
 * Ranking of recall and memory_search facts.
 *
 *   score = lexical × scopeWeight × confidenceWeight × reinforcementWeight
 *
 *   lexical   = base × (1 + 0.5 · phrase) × (1 + 0.5 · bm25n)
 *   base      = overlap × coverage ÷ ln(|T| + 10)                       (reference §5.2)
 *               overlap  = Σ over query terms q of count(q in T)
 *               coverage = (query terms present in T) ÷ |Q|
 *   phrase    = longest run of consecutive query words found contiguously in the fact, ÷ |Q|,
 *               counted only from two words up (0 otherwise); 1 = the whole query as a phrase
 *   bm25n     = bm25 ÷ (bm25 + 1), the Okapi BM25 of the fact (k1 = 1.2, b = 0.75), squashed
 *               into [0, 1). Its IDF is taken over the facts the session can see:
 *               idf(q) = ln(1 + (N − df + 0.5) ÷ (df + 0.5)), N = visible facts, df = visible
 *               facts holding q (counted up to the candidate cap)
 *   scopeWeight         session 1.35 · project 1.30 · workspace 1.20 · folder 1.15 · user 1.00
 *   confidenceWeight    high 1.10 · medium 1.00 · low 0.70
 *   reinforcementWeight min(1.20, 1 + 0.03 · ln(1 + max(1, reinforcement)))
 *
 * Exact evidence dominates: the phrase and BM25 factors can each add up to 50%, scope at most
 * 35%, while reinforcement has diminishing returns and is capped at +20%, so many supporting
 * sessions never lift a partial match over an exact one. Ties break on the fact id.
 * T = the fact's normalized tokens, Q = the query terms.
 */
export const SCOPE_WEIGHT: Record<Scope, number> = {
  session: 1.35,
  project: 1.3,
  workspace: 1.2,
  folder: 1.15,
  user: 1.0,
};

export const CONFIDENCE_WEIGHT: Record<Confidence, number> = { high: 1.1, medium: 1.0, low: 0.7 };

export const reinforcementWeight = (reinforcement: number): number =>
  Math.min(1.2, 1 + Math.log(1 + Math.max(1, reinforcement)) * 0.03);

const K1 = 1.2;
const B = 0.75;

export interface LexicalMatch {
  base: number;
  coverage: number;
  overlap: number;
  matched: string[];
  /** Token count of the text. */
  length: number;
  /** Query term -> occurrences in the text. */
  counts: Map<string, number>;
  phrase: number;
}

/** Counts of each query term in the text's normalized tokens, and the base score (§5.2). */
export function lexicalMatch(text: string, query: readonly string[], sequence: readonly string[] = []): LexicalMatch {
  const raw = rawTokens(text);
  const tokens = raw.map(normalizeToken);
  const counts = new Map<string, number>();
  for (const q of query) counts.set(q, 0);
  for (const t of tokens) {
    const c = counts.get(t);
    if (c !== undefined) counts.set(t, c + 1);
  }
  let overlap = 0;
  const matched: string[] = [];
  for (const [q, c] of counts) {
    overlap += c;
    if (c > 0) matched.push(q);
  }
  const coverage = query.length ? matched.length / query.length : 0;
  const base = query.length && tokens.length ? (overlap * coverage) / Math.log(tokens.length + 10) : 0;
  // The phrase is compared without stop-words on either side, as the query's sequence is.
  const run =
    sequence.length >= 2 && matched.length >= 2
      ? phraseRun(
          tokens.filter((_, i) => !STOP_WORDS.has(raw[i]!)),
          sequence,
        )
      : 0;
  const phrase = run >= 2 ? run / sequence.length : 0;
  return { base, coverage, overlap, matched: matched.sort(), length: tokens.length, counts, phrase };
}

/** Longest run of consecutive query tokens that appears contiguously in the text. */
export function phraseRun(text: readonly string[], query: readonly string[]): number {
  let best = 0;
  // Longest common substring over tokens; both sides are short (a fact is <= 500 chars).
  let prev = new Array<number>(query.length + 1).fill(0);
  for (let i = 1; i <= text.length; i++) {
    const row = new Array<number>(query.length + 1).fill(0);
    for (let j = 1; j <= query.length; j++) {
      if (text[i - 1] === query[j - 1]) {
        row[j] = prev[j - 1]! + 1;
        if (row[j]! > best) best = row[j]!;
      }
    }
    prev = row;
  }
  return best;
}

export interface CollectionStats {
  /** Facts visible to the session (N). */
  documents: number;
  /** Query term -> visible facts holding it (df). */
  documentFrequency: Map<string, number>;
  averageLength: number;
}

export function bm25(match: LexicalMatch, stats: CollectionStats): number {
  const n = Math.max(stats.documents, 1);
  const avg = Math.max(stats.averageLength, 1);
  let score = 0;
  for (const [q, tf] of match.counts) {
    if (tf === 0) continue;
    const df = Math.min(stats.documentFrequency.get(q) ?? 1, n);
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * match.length) / avg));
  }
  return score;
}

export interface RankInput {
  match: LexicalMatch;
  scope: Scope;
  confidence: Confidence;
  reinforcement: number;
  bm25: number;
}

export function lexicalScore(match: LexicalMatch, bm25Score: number): number {
  const bm25n = bm25Score / (bm25Score + 1);
  return match.base * (1 + 0.5 * match.phrase) * (1 + 0.5 * bm25n);
}

export function finalScore(r: RankInput): number {
  return (
    lexicalScore(r.match, r.bm25) *
    SCOPE_WEIGHT[r.scope] *
    CONFIDENCE_WEIGHT[r.confidence] *
    reinforcementWeight(r.reinforcement)
  );
}
