import { describe, expect, it } from 'vitest';
import { normalizeToken } from '../../src/main/text/tokenize';
import { foldWord, foldedWordsHeld, forgetFoldedWords } from '../../src/main/text/words';

describe('folded words kept per thread', () => {
  it('fold exactly as normalizeToken does, remembering each raw word once', () => {
    forgetFoldedWords();
    const words = ['libraries', 'running', 'passed', '2022', 'tiếng', 'ties', 'class', 'running'];
    expect(words.map(foldWord)).toEqual(words.map(normalizeToken));
    expect(foldedWordsHeld()).toBe(7);
  });

  it('keep at most 50,000 words, clearing when the bound is reached, and none once forgotten', () => {
    forgetFoldedWords();
    for (let i = 0; i < 50_000; i++) foldWord(`word${i}x`);
    expect(foldedWordsHeld()).toBe(50_000);
    expect(foldWord('deployments')).toBe('deployment');
    expect(foldedWordsHeld()).toBe(1);
    forgetFoldedWords();
    expect(foldedWordsHeld()).toBe(0);
  });
});
