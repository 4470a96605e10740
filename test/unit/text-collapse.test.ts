import { describe, expect, it } from 'vitest';
import { collapseSpace } from '../../src/shared/whitespace';
import { foldForKey, normalizeFactText } from '../../src/main/text/fact-text';

// The plain definitions the faster forms must agree with: every run replaced, whatever it is.
const everyRunCollapsed = (t: string) => t.replace(/\s+/gu, ' ').trim();
const everySeparatorRunFolded = (t: string) =>
  t
    .normalize('NFKC')
    .toLowerCase()
    .replace(/ß/gu, 'ss')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

// Letters, digits, ASCII and Unicode spaces, line breaks, punctuation, a combining mark, an emoji
// (two UTF-16 units), CJK, ß and a full-width digit (NFKC folds it).
const PIECES = [
  'a',
  'Z',
  'é',
  '7',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\v',
  '\f',
  '\u00a0',
  '\u2003',
  '\u3000',
  '\u2028',
  '\ufeff',
  '.',
  ',',
  '-',
  '_',
  '/',
  "'",
  '\u0301',
  '😀',
  '日本',
  'ß',
  '\uff11',
  'pnpm',
  'Use',
];

/** A deterministic stream of strings built from PIECES. */
function* samples(count: number): Generator<string> {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let i = 0; i < count; i++) {
    let s = '';
    for (let n = next() % 12; n >= 0; n--) s += PIECES[next() % PIECES.length];
    yield s;
  }
}

describe('collapsing whitespace and folding separators', () => {
  it('collapseSpace gives what replacing every whitespace run gives', () => {
    for (const s of samples(20_000)) expect(collapseSpace(s), JSON.stringify(s)).toBe(everyRunCollapsed(s));
  });

  it('normalizeFactText and foldForKey give what replacing every run gives', () => {
    for (const s of samples(20_000)) {
      expect(normalizeFactText(s), JSON.stringify(s)).toBe(everyRunCollapsed(s.normalize('NFC')));
      expect(foldForKey(s), JSON.stringify(s)).toBe(everySeparatorRunFolded(s));
    }
  });

  it('leaves single spaces and replaces every other run', () => {
    expect(collapseSpace('  use\tpnpm \u00a0 9\n')).toBe('use pnpm 9');
    expect(foldForKey('Use  pnpm, v9! 😀 ok')).toBe('use pnpm v9 ok');
  });
});
