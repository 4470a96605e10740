/**
 * The baseline the LoCoMo bench prints beside the engine: plain Okapi BM25 over the same turns,
 * computed here and independent of the engine's code. Words are `\w+` runs of the lower-cased
 * text, the common NLTK English stop-words removed, no stemming; k1 1.2, b 0.75, idf
 * ln((N − df + 0.5) ÷ (df + 0.5)) floored at 0; ranked per conversation, ties in turn order.
 */

// prettier-ignore
const NLTK_STOP_WORDS = new Set([
  'i', 'me', 'my', 'myself', 'we', 'our', 'ours', 'ourselves', 'you', "you're", "you've", "you'll", "you'd",
  'your', 'yours', 'yourself', 'yourselves', 'he', 'him', 'his', 'himself', 'she', "she's", 'her', 'hers',
  'herself', 'it', "it's", 'its', 'itself', 'they', 'them', 'their', 'theirs', 'themselves', 'what', 'which',
  'who', 'whom', 'this', 'that', "that'll", 'these', 'those', 'am', 'is', 'are', 'was', 'were', 'be', 'been',
  'being', 'have', 'has', 'had', 'having', 'do', 'does', 'did', 'doing', 'a', 'an', 'the', 'and', 'but', 'if',
  'or', 'because', 'as', 'until', 'while', 'of', 'at', 'by', 'for', 'with', 'about', 'against', 'between',
  'into', 'through', 'during', 'before', 'after', 'above', 'below', 'to', 'from', 'up', 'down', 'in', 'out',
  'on', 'off', 'over', 'under', 'again', 'further', 'then', 'once', 'here', 'there', 'when', 'where', 'why',
  'how', 'all', 'any', 'both', 'each', 'few', 'more', 'most', 'other', 'some', 'such', 'no', 'nor', 'not',
  'only', 'own', 'same', 'so', 'than', 'too', 'very', 's', 't', 'can', 'will', 'just', 'don', "don't",
  'should', "should've", 'now', 'd', 'll', 'm', 'o', 're', 've', 'y', 'ain', 'aren', "aren't", 'couldn',
  "couldn't", 'didn', "didn't", 'doesn', "doesn't", 'hadn', "hadn't", 'hasn', "hasn't", 'haven', "haven't",
  'isn', "isn't", 'ma', 'mightn', "mightn't", 'mustn', "mustn't", 'needn', "needn't", 'shan', "shan't",
  'shouldn', "shouldn't", 'wasn', "wasn't", 'weren', "weren't", 'won', "won't", 'wouldn', "wouldn't",
]);

const words = (text: string): string[] =>
  (text.toLowerCase().match(/\w+/g) ?? []).filter((w) => !NLTK_STOP_WORDS.has(w));

export interface Bm25Index {
  /** The ids of the documents, best first, for a query. */
  rank(query: string): string[];
}

export function plainBm25(documents: readonly { id: string; text: string }[], k1 = 1.2, b = 0.75): Bm25Index {
  const docs = documents.map((d) => {
    const tokens = words(d.text);
    const tf = new Map<string, number>();
    for (const w of tokens) tf.set(w, (tf.get(w) ?? 0) + 1);
    return { id: d.id, length: tokens.length, tf };
  });
  const n = docs.length;
  const averageLength = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, n);
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d.tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const idf = (w: string) => {
    const f = df.get(w) ?? 0;
    return Math.max(0, Math.log((n - f + 0.5) / (f + 0.5)));
  };
  return {
    rank(query) {
      const terms = [...new Set(words(query))];
      return docs
        .map((d, i) => {
          let score = 0;
          for (const w of terms) {
            const f = d.tf.get(w) ?? 0;
            if (f) score += (idf(w) * f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.length) / averageLength));
          }
          return { id: d.id, score, i };
        })
        .filter((d) => d.score > 0)
        .sort((x, y) => y.score - x.score || x.i - y.i)
        .map((d) => d.id);
    },
  };
}
