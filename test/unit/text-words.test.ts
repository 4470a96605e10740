import { describe, expect, it } from 'vitest';
import { STOP_WORDS, normalizeToken, rawTokens } from '../../src/main/text/tokenize';
import { foldWord, forgetTextWords, textWords, textWordsHeld } from '../../src/main/text/text-words';

const direct = (text: string) => {
  const raw = rawTokens(text);
  return { raw, folded: raw.map(normalizeToken), stop: raw.map((r) => STOP_WORDS.has(r)) };
};

describe('text words kept per thread', () => {
  it('split a text exactly as the tokenizer does, the same answer the second time', () => {
    const text = 'The deploys were running on Tiếng Việt hosts, passed 2022 checks: i\u2019m sure';
    expect(textWords(text)).toEqual(direct(text));
    expect(textWords(text)).toBe(textWords(text));
    expect(foldWord('libraries')).toBe('library');
  });

  it('keep a bounded number of characters, clearing when the bound is reached', () => {
    const before = textWordsHeld();
    const texts = Array.from({ length: 400 }, (_, i) => `fact ${i} ${'word '.repeat(600)}`.slice(0, 3_900));
    for (const t of texts) textWords(t);
    // 400 texts of 3,900 characters pass the 500,000-character bound: the map was cleared on the way.
    const held = textWordsHeld();
    expect(held.chars).toBeLessThanOrEqual(500_000);
    expect(held.chars).toBeLessThan(before.chars + 400 * 3_900);
    expect(held.texts).toBeGreaterThan(0);
    // Whatever was cleared is split again, to the same words.
    expect(textWords(texts[0]!)).toEqual(direct(texts[0]!));
  });

  it('are all dropped when the thread rests', () => {
    textWords('one short text to keep');
    expect(textWordsHeld().texts).toBeGreaterThan(0);
    forgetTextWords();
    expect(textWordsHeld()).toEqual({ texts: 0, chars: 0, folds: 0 });
  });

  it('never keep a long text (it is split each time)', () => {
    const long = 'alpha beta '.repeat(1_000);
    const held = textWordsHeld().chars;
    expect(textWords(long)).toEqual(direct(long));
    expect(textWords(long)).not.toBe(textWords(long));
    expect(textWordsHeld().chars).toBe(held);
  });
});
