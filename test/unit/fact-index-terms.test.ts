import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { factIndexTerms } from '../../src/main/text/fact-index';
import { factKeyOfFolded, foldForKey } from '../../src/main/text/fact-text';
import { normalizeToken, rawTokens } from '../../src/main/text/tokenize';

/** The index row as a set of the folded words would build it, for comparison. */
const expected = (scopeId: number, text: string): string =>
  [...new Set(rawTokens(text).map(normalizeToken))].map((t) => `${t}_${scopeId.toString(36)}`).join(' ');

describe('a fact index row', () => {
  it('holds each folded word once, in first-seen order, tagged with the scope in base 36', () => {
    expect(factIndexTerms(51, 'Deploys go out; deploying twice, deployed once: deploy!')).toBe(
      'deploy_1f go_1f out_1f twice_1f once_1f',
    );
    expect(factIndexTerms(7, '...')).toBe('');
  });

  it('keeps one copy of each word past the first 32 distinct ones, as a set would', () => {
    const words = Array.from({ length: 80 }, (_, i) => `w${i % 45}x`);
    const text = [...words, ...[...words].reverse()].join(' ');
    expect(factIndexTerms(1234, text)).toBe(expected(1234, text));
    expect(factIndexTerms(1234, text).split(' ')).toHaveLength(45);
  });
});

describe('a fact dedup key', () => {
  it('is the first 31 bits of the folded text’s sha256, as stored keys were written', () => {
    for (const text of ['Use pnpm', 'Tiếng Việt là ngôn ngữ', 'emoji 🚀 and ß', 'x'.repeat(5000), '']) {
      const folded = foldForKey(text);
      const reference = createHash('sha256').update(folded).digest().readUInt32BE(0) >>> 1;
      expect(factKeyOfFolded(folded)).toBe(reference);
    }
  });
});
