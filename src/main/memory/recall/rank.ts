import type { Confidence, Scope } from '../../../shared/domain';
import { STOP_WORDS, rawTokens, normalizeToken, termsBySurfaceForm } from '../../text/tokenize';
import { inverseDocumentFrequency, saturation } from '../../text/bm25';

/**
 * Term weighting shared by every lexical search (facts, wiki pages, dialogue): Okapi BM25.
 *
 *   idf(q)     = ln(1 + (N − df + 0.5) ÷ (df + 0.5))        N = documents the caller can see,
 *                                                           df = those holding q
 *   sat(tf, ℓ) = tf · (k1 + 1) ÷ (tf + k1 · (1 − b + b · ℓ ÷ avgℓ))     k1 = 1.2, b = 0.75,
 *                                                           ℓ = content words (no stop-words)
 *   bm25       = Σ over query terms q of w(q) · sat(tf(q), ℓ)           w(q) = idf(q) unless a
 *                                                                       caller damps it further
 *   coverage_w = Σ w(q) over the terms the text holds ÷ Σ w(q) over all query terms
 *
 * A rare word therefore outweighs any number of common ones, and a text that holds the rare words
 * of the query outranks one that repeats a common word or a name. The original scored
 * overlap × coverage ÷ ln(length + 10) with every word weighing the same, so a short turn that
 * only named the other speaker beat the long one holding the question's one rare word.
 *
 * Facts (recall and memory_search) then keep the original's order of signals: exact lexical
 * evidence first, then scope, confidence and reinforcement.
 *
 *   score    = lexical × scopeWeight × confidenceWeight × reinforcementWeight
 *   lexical  = bm25 × (1 + coverage_w) × (1 + 0.5 · phrase)
 *   phrase   = longest run of consecutive query words found contiguously in the fact, ÷ |Q|,
 *              counted from two words up (0 otherwise); 1 = the whole query as a phrase
 *   scopeWeight         session 1.35 · project 1.30 · workspace 1.20 · folder 1.15 · user 1.00
 *   confidenceWeight    high 1.10 · medium 1.00 · low 0.70
 *   reinforcementWeight min(1.20, 1 + 0.03 · ln(1 + max(1, reinforcement)))
 *
 * Exact evidence dominates: holding every weighted query word doubles the lexical score and the
 * whole phrase adds half, scope adds at most 35%, and reinforcement has diminishing returns capped
 * at +20%, so many supporting sessions never lift a partial match over a full one. Ties break on
 * the fact id.
 */
const PHRASE_BOOST = 0.5;

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

export interface LexicalMatch {
  coverage: number;
  overlap: number;
  matched: string[];
  /** Content words in the text (stop-words do not lengthen it). */
  length: number;
  /** Query term -> occurrences in the text. */
  counts: Map<string, number>;
  phrase: number;
}

/** Counts of each query term in the text's normalized tokens, coverage and the phrase run. */
export function lexicalMatch(text: string, query: readonly string[], sequence: readonly string[] = []): LexicalMatch {
  return queryMatcher(query, sequence)(text);
}

/**
 * lexicalMatch for many texts against one query (a search's candidates). No word of a text is
 * folded: a raw word counts for the query term whose surface forms hold it (exactly the raw words
 * that fold to the term, the words the index lookups asked for), and every other word breaks a
 * phrase run the same way.
 */
export function queryMatcher(
  query: readonly string[],
  sequence: readonly string[] = [],
): (text: string) => LexicalMatch {
  const termOf = termsBySurfaceForm(query);
  const phraseWanted = sequence.length >= 2;
  return (text) => {
    const counts = new Map<string, number>();
    for (const q of query) counts.set(q, 0);
    // The phrase is compared without stop-words on either side, as the query's sequence is.
    const content: (string | null)[] = [];
    let length = 0;
    for (const raw of rawTokens(text)) {
      const t = termOf.get(raw);
      if (t !== undefined) counts.set(t, counts.get(t)! + 1);
      if (STOP_WORDS.has(raw)) continue;
      length++;
      if (phraseWanted) content.push(t ?? null);
    }
    let overlap = 0;
    const matched: string[] = [];
    for (const [q, c] of counts) {
      overlap += c;
      if (c > 0) matched.push(q);
    }
    const coverage = query.length ? matched.length / query.length : 0;
    const run = phraseWanted && matched.length >= 2 ? phraseRun(content, sequence) : 0;
    const phrase = run >= 2 ? run / sequence.length : 0;
    return { coverage, overlap, matched: matched.sort(), length, counts, phrase };
  };
}

/**
 * A text's folded words counted once, for a text matched against query after query (a wiki page):
 * every folded word's occurrences (a stop-word's too, as lexicalMatch counts them) and the
 * content-word length.
 */
export interface TextBag {
  counts: ReadonlyMap<string, number>;
  length: number;
}

export function textBag(text: string): TextBag {
  const counts = new Map<string, number>();
  let length = 0;
  for (const raw of rawTokens(text)) {
    const t = normalizeToken(raw);
    counts.set(t, (counts.get(t) ?? 0) + 1);
    if (!STOP_WORDS.has(raw)) length++;
  }
  return { counts, length };
}

/** lexicalMatch(text, query) without a phrase, from the text's bag: a lookup per query term. */
export function bagMatch(bag: TextBag, query: readonly string[]): LexicalMatch {
  const counts = new Map<string, number>();
  let overlap = 0;
  const matched: string[] = [];
  for (const q of query) {
    if (counts.has(q)) continue;
    const c = bag.counts.get(q) ?? 0;
    counts.set(q, c);
    overlap += c;
    if (c > 0) matched.push(q);
  }
  const coverage = query.length ? matched.length / query.length : 0;
  return { coverage, overlap, matched: matched.sort(), length: bag.length, counts, phrase: 0 };
}

/** Longest run of consecutive query tokens that appears contiguously in the text. */
export function phraseRun(text: readonly (string | null)[], query: readonly string[]): number {
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

/** Per-term weights (idf, possibly damped) and the collection's average text length. */
export interface TermWeights {
  weight: Map<string, number>;
  averageLength: number;
}

/** Term weights from document frequencies over `documents` visible texts. */
export function termWeights(
  documentFrequency: ReadonlyMap<string, number>,
  documents: number,
  averageLength: number,
): TermWeights {
  const weight = new Map<string, number>();
  for (const [q, df] of documentFrequency) weight.set(q, inverseDocumentFrequency(df, documents));
  return { weight, averageLength };
}

export function bm25(counts: ReadonlyMap<string, number>, length: number, weights: TermWeights): number {
  let score = 0;
  for (const [q, tf] of counts) {
    if (tf > 0) score += (weights.weight.get(q) ?? 0) * saturation(tf, length, weights.averageLength);
  }
  return score;
}

/** The share of the query's total weight held by the terms the text contains. */
export function weightedCoverage(counts: ReadonlyMap<string, number>, weights: TermWeights): number {
  let held = 0;
  let total = 0;
  for (const [q, w] of weights.weight) {
    total += w;
    if ((counts.get(q) ?? 0) > 0) held += w;
  }
  return total > 0 ? held / total : 0;
}

export function lexicalScore(match: LexicalMatch, weights: TermWeights): number {
  return (
    bm25(match.counts, match.length, weights) *
    (1 + weightedCoverage(match.counts, weights)) *
    (1 + PHRASE_BOOST * match.phrase)
  );
}

export interface RankInput {
  lexical: number;
  scope: Scope;
  confidence: Confidence;
  reinforcement: number;
}

export function finalScore(r: RankInput): number {
  return r.lexical * SCOPE_WEIGHT[r.scope] * CONFIDENCE_WEIGHT[r.confidence] * reinforcementWeight(r.reinforcement);
}
