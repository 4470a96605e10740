/**
 * Okapi BM25's two formulas, shared by the store's fact browser and every lexical search (the
 * ranking they feed is explained in memory/recall/rank.ts). k1 = 1.2 and b = 0.75 are BM25's
 * usual values: a term's weight saturates after a few occurrences, and a long text is damped.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** BM25's inverse document frequency; df is clamped into [0, N]. */
export function inverseDocumentFrequency(df: number, documents: number): number {
  const n = Math.max(documents, 1);
  const d = Math.min(Math.max(df, 0), n);
  return Math.log(1 + (n - d + 0.5) / (d + 0.5));
}

/** BM25's saturated, length-normalized term frequency. */
export function saturation(tf: number, length: number, averageLength: number): number {
  if (tf <= 0) return 0;
  const norm = 1 - BM25_B + (BM25_B * length) / Math.max(averageLength, 1);
  return (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * norm);
}
