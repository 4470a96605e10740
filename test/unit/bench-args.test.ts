import { describe, expect, it } from 'vitest';
import { splitArguments } from '../bench/run';

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
