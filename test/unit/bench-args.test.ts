import { describe, expect, it } from 'vitest';
import { selectBenches, splitArguments } from '../bench/run';

describe('npm run bench arguments', () => {
  it('separates bench names from flags, a flag taking the word after it as its value', () => {
    expect(splitArguments(['locomo', '--data', '../x.json'])).toEqual({
      names: ['locomo'],
      flags: ['--data', '../x.json'],
    });
    expect(splitArguments(['--data=/d.json', 'recall', 'locomo'])).toEqual({
      names: ['recall', 'locomo'],
      flags: ['--data=/d.json'],
    });
    expect(splitArguments(['--quick', '--data', 'f'])).toEqual({ names: [], flags: ['--quick', '--data', 'f'] });
  });
});

describe('npm run bench names', () => {
  const files = ['locomo.bench.ts', 'locomo-extraction.bench.ts', 'store.bench.ts', 'fts-write.bench.ts', 'run.ts'];

  it("a bench's own name runs that bench only; a part of a name runs every bench containing it", () => {
    expect(selectBenches(files, ['locomo'])).toEqual(['locomo.bench.ts']);
    expect(selectBenches(files, ['locomo-extraction'])).toEqual(['locomo-extraction.bench.ts']);
    expect(selectBenches(files, ['loco'])).toEqual(['locomo-extraction.bench.ts', 'locomo.bench.ts']);
    expect(selectBenches(files, ['store', 'write'])).toEqual(['fts-write.bench.ts', 'store.bench.ts']);
  });

  it('no names: every bench file, nothing else', () => {
    expect(selectBenches(files, [])).toEqual([
      'fts-write.bench.ts',
      'locomo-extraction.bench.ts',
      'locomo.bench.ts',
      'store.bench.ts',
    ]);
  });
});
