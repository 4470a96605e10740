/**
 * English sentence analysis for the built-in extractor: sentence boundaries, part-of-speech
 * tags, lemmas and negation from wink-nlp with its bundled English model (offline, no weights
 * to download). The model costs ~4 MB on disk and ~0.2 s to load, so it is loaded on first
 * use, not at startup: CLI commands that never extract never pay for it.
 */
import type { PartOfSpeech } from 'wink-nlp';

export interface Token {
  /** As written (apostrophes straightened). */
  text: string;
  lower: string;
  pos: PartOfSpeech;
  lemma: string;
  /** Inside the scope of a negation ("not", "never", "n't"). */
  negated: boolean;
  /** Whitespace before this token in the sentence, to rebuild text from a token range. */
  space: string;
}

export interface Sentence {
  text: string;
  tokens: Token[];
}

type Analyzer = (text: string) => Sentence[];

let analyzer: Analyzer | null = null;
let loading: Promise<Analyzer> | null = null;

/** Stands in for a dot inside a word (fly.io, auth.spec.ts, e.g) so it never ends a sentence. */
const INNER_DOT = '\u2024';

/**
 * The tagger reads "I'm" at the start of a sentence as one proper noun; spelled out it tags the
 * pronoun and the verb correctly. Curly apostrophes are straightened for the same reason, and a
 * dot between two word characters (a domain, a file name) is kept from splitting the sentence.
 */
export function normalizeForTagging(text: string): string {
  return text
    .replace(/(\w|^|\s)\.(?=\w)/g, `$1${INNER_DOT}`)
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\bI'm\b/g, 'I am')
    .replace(/\bi'm\b/g, 'i am');
}

async function build(): Promise<Analyzer> {
  const [{ default: winkNLP }, { default: model }] = await Promise.all([
    import('wink-nlp'),
    import('wink-eng-lite-web-model'),
  ]);
  const nlp = winkNLP(model, ['sbd', 'pos', 'negation']);
  const its = nlp.its;
  return (text: string) => {
    const doc = nlp.readDoc(normalizeForTagging(text));
    const out: Sentence[] = [];
    doc.sentences().each((s: { tokens(): any; out(): string }) => {
      const tokens = s.tokens();
      const values = tokens.out(its.value) as string[];
      const pos = tokens.out(its.pos) as PartOfSpeech[];
      const lemmas = tokens.out(its.lemma) as string[];
      const negation = tokens.out(its.negationFlag) as unknown as boolean[];
      const spaces = tokens.out(its.precedingSpaces) as string[];
      const all = values.map((raw, i) => {
        const v = raw.split(INNER_DOT).join('.');
        return {
          text: v,
          lower: v.toLowerCase(),
          pos: pos[i]!,
          lemma: (lemmas[i] ?? v).toLowerCase(),
          negated: !!negation[i],
          space: spaces[i] ?? '',
        };
      });
      const kept = all.filter((t) => t.pos !== 'SPACE');
      if (kept.length) {
        kept[0] = { ...kept[0]!, space: '' };
        out.push({ text: textOf(kept), tokens: kept });
      }
    });
    return out;
  };
}

/** Loads the model once; concurrent callers share the same load. */
export function loadEnglish(): Promise<Analyzer> {
  if (analyzer) return Promise.resolve(analyzer);
  loading ??= build().then((a) => (analyzer = a));
  return loading;
}

/** Sentences of already-loaded English; call loadEnglish() first. */
export function analyze(text: string): Sentence[] {
  if (!analyzer) throw new Error('English model not loaded: await loadEnglish() first');
  return analyzer(text);
}

/** Rebuilds the text of tokens [from, to). */
export function textOf(tokens: Token[], from = 0, to = tokens.length): string {
  return tokens
    .slice(from, to)
    .map((t, i) => (i === 0 ? '' : t.space) + t.text)
    .join('');
}
