import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/home';
import { connectMcp } from '../helpers/mcp';

const PRELOAD = path.resolve(__dirname, '../fixtures/heap-report.cjs');
/** V8's default lets each semi-space grow to 16 MB here (32 MB committed); kept small, it stays at 1-4 MB. */
const MAX_NEW_SPACE_MB = 8;

/**
 * An agent server keeps its young generation small on the main thread and in its read-lane
 * worker (bin/evoflux-memory.js sets the flag, the worker sets it again after its start undid
 * it), after enough calls and writes that V8 would otherwise have grown it to its ceiling.
 */
describe('agent server young generation', () => {
  const home = tempHome('evoflux-young-gen-');
  const reports = mkdtempSync(path.join(os.tmpdir(), 'evoflux-heap-report-'));
  afterAll(() => {
    home.cleanup();
    rmSync(reports, { recursive: true, force: true });
  });

  it('stays at its starting size in both threads after a busy spell', async () => {
    const mcp = await connectMcp(home.dir, ['--project', 'p0'], {
      NODE_OPTIONS: `--require ${PRELOAD}`,
      HEAP_REPORT_DIR: reports,
    });
    try {
      const { id: sessionId } = await mcp.call('memory_create_session', { projectId: 'p0', title: 'young gen' });
      const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima'.split(' ');
      const sentence = (i: number) =>
        Array.from({ length: 12 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
      await mcp.call('memory_remember_batch', {
        sessionId,
        facts: Array.from({ length: 1000 }, (_, i) => ({ text: `${sentence(i)} item ${i}`, scope: 'project' })),
      });
      for (let i = 0; i < 150; i++) {
        await mcp.call('memory_search', { sessionId, query: `${words[i % 12]} ${words[(i * 5) % 12]}` });
        await mcp.call('memory_remember', { sessionId, text: `${sentence(i + 3)} note ${i}`, scope: 'project' });
      }
      // One more report from each thread after the busy spell.
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      await mcp.close();
    }
    const threads = readdirSync(reports).map(
      (f) => JSON.parse(readFileSync(path.join(reports, f), 'utf8')) as { threadId: number; newSpaceBytes: number },
    );
    expect(threads.map((t) => t.threadId).sort()).toEqual([0, 1]);
    for (const t of threads)
      expect(t.newSpaceBytes / 2 ** 20, `thread ${t.threadId}`).toBeLessThanOrEqual(MAX_NEW_SPACE_MB);
  }, 60_000);
});
