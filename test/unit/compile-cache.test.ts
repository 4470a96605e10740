import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/build';

/**
 * bin/compile-cache.js, as bin/evoflux-memory.js installs it, on a small module in a temp folder:
 * real child processes, real V8 caches on disk.
 */
const INSTALL = path.join(ROOT, 'bin', 'compile-cache.js');
let dir = '';

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function setUp(): { lib: string; cacheDir: string; run(env?: NodeJS.ProcessEnv): string } {
  dir = mkdtempSync(path.join(os.tmpdir(), 'evoflux-compile-cache-'));
  const lib = path.join(dir, 'lib');
  const entry = path.join(dir, 'run.js');
  writeFileSync(
    entry,
    `require(${JSON.stringify(INSTALL)}).installCompileCache(${JSON.stringify(lib)});\n` +
      `const m = require('./lib/answer.js');\nconsole.log(JSON.stringify({ answer: m.answer(), file: m.file, dir: m.dir, lib: m.lib }));\n`,
  );
  rmSync(lib, { recursive: true, force: true });
  require('node:fs').mkdirSync(lib);
  writeAnswer(lib, 42);
  const run = (env: NodeJS.ProcessEnv = {}) => {
    const r = spawnSync(process.execPath, [entry], {
      cwd: os.tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout.trim();
  };
  return { lib, cacheDir: path.join(lib, '.compile-cache'), run };
}

function writeAnswer(lib: string, value: number): void {
  writeFileSync(
    path.join(lib, 'answer.js'),
    `const path = require('node:path');\n` +
      `exports.answer = () => ${value};\nexports.file = __filename;\nexports.dir = __dirname;\n` +
      `exports.lib = path.basename(require.resolve('./answer.js'));\n`,
  );
}

const caches = (cacheDir: string) => {
  try {
    return readdirSync(cacheDir).sort();
  } catch {
    return [];
  }
};

describe('the compile cache of the bundle', () => {
  it('is written by the first run and read, not rewritten, by the next', () => {
    const { lib, cacheDir, run } = setUp();
    const expected = JSON.stringify({ answer: 42, file: path.join(lib, 'answer.js'), dir: lib, lib: 'answer.js' });
    expect(run()).toBe(expected);
    const written = caches(cacheDir);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^answer-.*\.bin$/);
    const mtime = statSync(path.join(cacheDir, written[0]!)).mtimeMs;
    expect(run()).toBe(expected);
    expect(caches(cacheDir)).toEqual(written);
    expect(statSync(path.join(cacheDir, written[0]!)).mtimeMs).toBe(mtime);
  });

  it('never serves a changed file from the old cache', () => {
    const { lib, cacheDir, run } = setUp();
    expect(JSON.parse(run()).answer).toBe(42);
    const before = caches(cacheDir);
    writeAnswer(lib, 17); // same length, different code
    expect(JSON.parse(run()).answer).toBe(17);
    expect(caches(cacheDir)).toHaveLength(2);
    expect(caches(cacheDir)).toEqual(expect.arrayContaining(before));
  });

  it('keeps its own caches for a process started with other V8 flags, so neither replaces the other', () => {
    const { cacheDir, run } = setUp();
    const flagged = { NODE_OPTIONS: '--max-semi-space-size=1' };
    expect(JSON.parse(run()).answer).toBe(42);
    expect(JSON.parse(run(flagged)).answer).toBe(42);
    const written = caches(cacheDir);
    expect(written).toHaveLength(2);
    const mtimes = written.map((name) => statSync(path.join(cacheDir, name)).mtimeMs);
    run();
    run(flagged);
    expect(caches(cacheDir)).toEqual(written);
    expect(written.map((name) => statSync(path.join(cacheDir, name)).mtimeMs)).toEqual(mtimes);
  });

  it('replaces a cache V8 rejects, and runs the file as usual', () => {
    const { cacheDir, run } = setUp();
    run();
    const [name] = caches(cacheDir);
    writeFileSync(path.join(cacheDir, name!), 'not a V8 code cache');
    expect(JSON.parse(run()).answer).toBe(42);
    expect(statSync(path.join(cacheDir, name!)).size).toBeGreaterThan(100);
  });

  it("keeps a worker thread's caches apart from the main thread's, and writes them on save() without waiting for exit", () => {
    const { lib, cacheDir, run } = setUp();
    expect(JSON.parse(run()).answer).toBe(42);
    expect(caches(cacheDir)).toHaveLength(1);
    const worker = path.join(dir, 'worker.js');
    writeFileSync(
      worker,
      `const c = require(${JSON.stringify(INSTALL)}).installCompileCache(${JSON.stringify(lib)}, process.env, 'read-lane');\n` +
        `require('./lib/answer.js').answer();\nc.save();\n` +
        `console.log(require('node:fs').readdirSync(${JSON.stringify(cacheDir)}).length);\nprocess.kill(process.pid, 'SIGKILL');\n`,
    );
    const r = spawnSync(process.execPath, [worker], { cwd: os.tmpdir(), encoding: 'utf8' });
    // Killed before exit: only save() can have written its cache.
    expect(r.stdout.trim()).toBe('2');
    expect(caches(cacheDir)).toHaveLength(2);
  });

  it('writes nothing when turned off (EVOFLUX_COMPILE_CACHE=0)', () => {
    const { cacheDir, run } = setUp();
    expect(JSON.parse(run({ EVOFLUX_COMPILE_CACHE: '0' })).answer).toBe(42);
    expect(caches(cacheDir)).toEqual([]);
  });

  it('runs uncached where the folder cannot be written', () => {
    const { lib, run } = setUp();
    writeFileSync(path.join(lib, '.compile-cache'), 'a file where the folder would go');
    expect(JSON.parse(run()).answer).toBe(42);
  });
});

describe('the build warm-up (scripts/warm-compile-cache.js)', () => {
  it('writes the caches of the CLI, the MCP server and its read-lane worker for the current build', () => {
    ensureBuilt();
    const started = Date.now() - 5; // file times may be rounded down a little
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'warm-compile-cache.js')], {
      cwd: os.tmpdir(),
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const cacheDir = path.join(ROOT, 'out', 'main', '.compile-cache');
    // <entry or chunk name>-<the bundler's hash, for chunks>-<content hash>-<node version>.bin,
    // rewritten by this run (the warm-up refreshes caches that exist already).
    const writtenNow = (chunk: string) =>
      caches(cacheDir).some((name) => {
        const middle = name.slice(chunk.length + 1, -`-${process.version}.bin`.length);
        if (!name.startsWith(`${chunk}-`) || !/^(?:[\w-]{8}-)?[0-9a-f]{20}$/.test(middle)) return false;
        return statSync(path.join(cacheDir, name)).mtimeMs >= started;
      });
    expect(writtenNow('cli')).toBe(true);
    expect(writtenNow('mcp')).toBe(true);
    // The read-lane worker's entry loads in worker threads only: they install the cache too.
    expect(writtenNow('read-lane.worker')).toBe(true);
  });
});
