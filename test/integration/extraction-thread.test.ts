import { afterEach, describe, expect, it } from 'vitest';
import { createExtractionThread, type ExtractionThread } from '../../src/main/workers/extraction-thread';
import { extractSync, loadEnglish } from '../../src/main/memory/extraction/rule-extractor';
import type { TranscriptWindow } from '../../src/main/memory/extraction/types';

let thread: ExtractionThread | null = null;
afterEach(async () => {
  await thread?.close();
  thread = null;
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

describe('the rule extractor in a worker thread', () => {
  it('proposes what the rules propose in-process, starting its worker on the first window', async () => {
    thread = createExtractionThread();
    expect(thread.running).toBe(false);
    const candidates = await thread.extract(sample, new AbortController().signal);
    expect(thread.running).toBe(true);
    await loadEnglish();
    expect(candidates).toEqual(extractSync(sample));
    expect(candidates.length).toBeGreaterThan(0);
  });

  it('rests only when idle, and starts again on the next window', async () => {
    thread = createExtractionThread();
    const first = thread.extract(sample, new AbortController().signal);
    expect(thread.rest()).toBe(false); // a window in flight
    await first;
    expect(thread.rest()).toBe(true);
    expect(thread.running).toBe(false);
    expect(await thread.extract(sample, new AbortController().signal)).toEqual(await first);
  });

  it('a cancelled window rejects at once; a closed thread rejects what was in flight and what comes after', async () => {
    thread = createExtractionThread();
    const cancel = new AbortController();
    const cancelled = thread.extract(sample, cancel.signal);
    cancel.abort(new Error('shutting down'));
    await expect(cancelled).rejects.toThrow('shutting down');
    const inFlight = expect(thread.extract(sample, new AbortController().signal)).rejects.toThrow('closed');
    await thread.close();
    await inFlight;
    await expect(thread.extract(sample, new AbortController().signal)).rejects.toThrow('closed');
  });
});
