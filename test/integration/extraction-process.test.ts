import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createExtractionProcess, type ExtractionProcess } from '../../src/main/workers/extraction-process';
import { extractSync, loadEnglish } from '../../src/main/memory/extraction/rule-extractor';
import type { TranscriptWindow } from '../../src/main/memory/extraction/types';
import { FOREIGN_CWD } from '../helpers/cli';
import { tempHome } from '../helpers/home';

let extractor: ExtractionProcess | null = null;
afterEach(async () => {
  await extractor?.close();
  extractor = null;
});

const window = (lines: [role: 'user' | 'assistant', text: string][]): TranscriptWindow => {
  const entries = lines.map(([role, text], i) => ({
    messageId: `m${i}`,
    seq: i + 1,
    role,
    text,
    createdAt: 1_700_000_000_000,
  }));
  return { sessionId: 's', entries, text: '', lastSeq: entries.length, truncated: false };
};

const sample = window([
  ['user', 'We decided to deploy the billing service with docker compose.'],
  ['assistant', 'Understood.'],
  ['user', 'I prefer short answers, and never push to main on fridays.'],
]);

/** Runs `script` in a Node process of its own (from outside the checkout); its stdout and exit code. */
async function runScript(script: string): Promise<{ out: string; code: number | null }> {
  const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], {
    cwd: FOREIGN_CWD,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { out, code };
}

describe('the rule extractor in a child process', () => {
  it('proposes what the rules propose in-process, starting its process on the first window', async () => {
    extractor = createExtractionProcess();
    expect(extractor.running).toBe(false);
    const candidates = await extractor.extract(sample, new AbortController().signal);
    expect(extractor.running).toBe(true);
    await loadEnglish();
    expect(candidates).toEqual(extractSync(sample));
    expect(candidates.length).toBeGreaterThan(0);
  });

  it('rests only when idle, and starts again on the next window', async () => {
    extractor = createExtractionProcess();
    const first = extractor.extract(sample, new AbortController().signal);
    expect(extractor.rest()).toBe(false); // a window in flight
    await first;
    expect(extractor.rest()).toBe(true);
    expect(extractor.running).toBe(false);
    expect(await extractor.extract(sample, new AbortController().signal)).toEqual(await first);
  });

  it('a cancelled window rejects at once; a closed extractor rejects what was in flight and what comes after', async () => {
    extractor = createExtractionProcess();
    const cancel = new AbortController();
    const cancelled = extractor.extract(sample, cancel.signal);
    cancel.abort(new Error('shutting down'));
    await expect(cancelled).rejects.toThrow('shutting down');
    const inFlight = expect(extractor.extract(sample, new AbortController().signal)).rejects.toThrow('closed');
    await extractor.close();
    await inFlight;
    await expect(extractor.extract(sample, new AbortController().signal)).rejects.toThrow('closed');
  });

  it('closes in a process with nothing else to do: the idle child is waited for, not left to end the event loop', async () => {
    // An idle child does not keep its parent alive, so the parent's event loop could run dry while
    // close() waits for the child's exit: close() never settled and the code after it (the engine's
    // other closers, the database's close, the CLI's exit code) never ran.
    const module = path.resolve(__dirname, '../../src/main/workers/extraction-process.ts');
    const script = `
      const { createExtractionProcess } = require(${JSON.stringify(module)});
      const p = createExtractionProcess();
      p.extract(${JSON.stringify(sample)}, new AbortController().signal)
        .then(() => p.close())
        .then(() => process.stdout.write('closed\\n'));`;
    expect(await runScript(script)).toEqual({ out: 'closed\n', code: 0 });
  });

  it('an engine that extracted closes in a process with nothing else to do, its database closed', async () => {
    const home = tempHome();
    try {
      const src = (file: string) => JSON.stringify(path.resolve(__dirname, '../../src/main', file));
      const script = `
        const { openEngine } = require(${src('engine.ts')});
        const { dispatch } = require(${src('commands/dispatch.ts')});
        const { OWNER } = require(${src('commands/principal.ts')});
        (async () => {
          const engine = openEngine({ home: ${JSON.stringify(home.dir)} });
          const run = (name, input) => dispatch(engine, name, input, OWNER);
          const { id } = await run('sessions.create', { projectId: 'p' });
          await run('messages.add', { sessionId: id, role: 'user', content: 'I prefer short answers.' });
          const r = await run('extraction.run', { sessionId: id });
          await engine.close();
          process.stdout.write(r.outcome + ' closed\\n');
        })();`;
      expect(await runScript(script)).toEqual({ out: 'stored closed\n', code: 0 });
      // The last connection to close checkpoints the WAL and removes it.
      expect(existsSync(path.join(home.dir, 'memory.db-wal'))).toBe(false);
    } finally {
      home.cleanup();
    }
  });

  it('exits by itself when the process that started it is killed', async () => {
    // A parent that starts the extractor, extracts once, prints the child's pid and then idles.
    const module = path.resolve(__dirname, '../../src/main/workers/extraction-process.ts');
    const script = `
      const { createExtractionProcess } = require(${JSON.stringify(module)});
      const p = createExtractionProcess();
      p.extract(${JSON.stringify(sample)}, new AbortController().signal)
        .then(() => { process.stdout.write(String(p.child.pid) + '\\n'); setInterval(() => {}, 1000); });`;
    const parent = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (d) => resolve(Number(String(d).trim())));
      parent.once('exit', (code) => reject(new Error(`parent exited (${code}) before extracting`)));
    });
    const alive = () => existsSync(`/proc/${pid}`) && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    expect(alive()).toBe(true);
    parent.kill('SIGKILL');
    for (let i = 0; i < 100 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive()).toBe(false);
  });
});
