import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FOREIGN_CWD } from '../helpers/cli';
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

describe('a bench that ends before its main finished', () => {
  const run = (body: string) => {
    const module = JSON.stringify(path.resolve(__dirname, '../bench/bench-main.ts'));
    const script = `const { runBench } = require(${module}); ${body}`;
    return spawnSync(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], {
      cwd: FOREIGN_CWD,
      encoding: 'utf8',
    });
  };

  it('fails, saying so, when the process runs out of work while main still waits', () => {
    // A promise nothing will ever settle, and no timer or handle left: the event loop runs dry.
    const r = run(
      `runBench(async () => { console.log('first figure'); await new Promise(() => {}); console.log('never'); });`,
    );
    expect(r.stdout).toBe('first figure\n');
    expect(r.stderr).toContain('ran out of work before main() finished');
    expect(r.status).toBe(1);
  });

  it('exits 0 when main finishes, and 1 with the error when it throws', () => {
    expect(
      run(`runBench(async () => { await new Promise((r) => setTimeout(r, 10)); console.log('done'); });`),
    ).toMatchObject({
      status: 0,
      stdout: 'done\n',
    });
    const failed = run(`runBench(async () => { throw new Error('seeding failed'); });`);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('seeding failed');
    expect(failed.stderr).not.toContain('ran out of work');
  });
});
