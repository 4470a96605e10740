import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createExtractionProcess, type ExtractionProcess } from '../../src/main/workers/extraction-process';
import { extractSync, loadEnglish } from '../../src/main/memory/extraction/rule-extractor';
import type { TranscriptWindow } from '../../src/main/memory/extraction/types';

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
