/**
 * The agent bench's data: deterministic fact texts drawn from a 20,000-word Zipf vocabulary (a
 * few words are in most facts, most words in a handful: the hard case for an index), spread over
 * ten projects with ten sessions each, their session scopes and the user scope, and queries made
 * of words from facts the searching session can see.
 */

/** mulberry32: the same data every run. */
export function prng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ren',
  'tas',
  'vo',
  'de',
  'pri',
  'sun',
  'gal',
  'bor',
  'fen',
  'qui',
  'zu',
  'mar',
  'tel',
];

function vocabulary(size: number): string[] {
  const words: string[] = [];
  for (let i = 0; words.length < size; i++) {
    let w = '';
    for (let k = i + 16; k > 0; k = Math.floor(k / 16)) w += SYLLABLES[k % 16];
    words.push(w);
  }
  return words;
}

export const PROJECTS = 10;
export const SESSIONS_PER_PROJECT = 10;

export type FactScope = 'project' | 'session' | 'user';

export interface BenchFact {
  text: string;
  kind: 'fact' | 'decision' | 'preference';
  scope: FactScope;
}

/** Facts for one batch of one session: 40% its project, 50% its session, 10% user preferences. */
export class FactSource {
  private readonly rnd: () => number;
  private readonly vocab = vocabulary(20_000);
  private readonly cumulative: number[] = [];
  private readonly total: number;
  private serial = 0;

  constructor(seed = 1234567) {
    this.rnd = prng(seed);
    let total = 0;
    for (let i = 1; i <= this.vocab.length; i++) this.cumulative.push((total += 1 / i));
    this.total = total;
  }

  /** The next number in [0, 1). */
  random(): number {
    return this.rnd();
  }

  pick(n: number): number {
    return Math.floor(this.rnd() * n);
  }

  word(): string {
    const x = this.rnd() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return this.vocab[lo]!;
  }

  sentence(min: number, max: number): string {
    return Array.from({ length: min + this.pick(max - min + 1) }, () => this.word()).join(' ');
  }

  /** One fact; every text is unique (a serial number), so each one is a new fact. */
  fact(): BenchFact {
    const r = this.rnd();
    const scope: FactScope = r < 0.4 ? 'project' : r < 0.9 ? 'session' : 'user';
    const kind = scope === 'user' ? 'preference' : r < 0.2 ? 'decision' : 'fact';
    return { text: `${this.sentence(6, 16)} n${this.serial++}`, kind, scope };
  }

  /**
   * A query: two to four words of a fact the searching session sees (so there are real hits),
   * sometimes a Zipf word more.
   */
  query(visibleText: string): string {
    const words = visibleText.split(' ').filter((w) => !/^n\d+$/.test(w));
    const start = this.pick(Math.max(1, words.length - 3));
    const chosen = words.slice(start, start + 2 + this.pick(3));
    if (this.rnd() < 0.3) chosen.push(this.word());
    return chosen.join(' ');
  }
}
