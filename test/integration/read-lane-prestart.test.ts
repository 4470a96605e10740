import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createReadLane, type ReadLane } from '../../src/main/workers/read-lane';
import { ensureBuilt, ROOT } from '../helpers/build';
import { openTestEngine, type TestEngine } from '../helpers/home';

/**
 * The launcher (bin/evoflux-memory.js) starts `mcp` and `serve`'s first read-lane worker before it
 * loads the bundle (bin/read-lane-prestart.js); the read lane adopts it. Real worker threads on
 * the compiled worker file, a real store.
 */
const { prestartReadLaneWorker } = require(path.join(ROOT, 'bin', 'read-lane-prestart.js')) as {
  prestartReadLaneWorker(
    outDir: string,
    args: string[],
    compileCache: { preload: string; dir: string; launcherArgv: string[] },
  ): { worker: Worker | null; failed: Error | null } | null;
};
const LAUNCH = Symbol.for('evoflux-memory.launch');
const OUT_MAIN = path.join(ROOT, 'out', 'main');

let lane: ReadLane | null = null;
let t: TestEngine | null = null;
const cacheDirs: string[] = [];
afterEach(async () => {
  delete (globalThis as Record<symbol, unknown>)[LAUNCH];
  await lane?.close();
  await t?.close();
  lane = null;
  t = null;
  for (const dir of cacheDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The compile cache a worker is given; here a folder of its own, so nothing of out/ is cached or written. */
function compileCache() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'evoflux-prestart-'));
  cacheDirs.push(dir);
  return { preload: path.join(ROOT, 'bin', 'worker-compile-cache.js'), dir, launcherArgv: [] };
}

async function storeWithOneFact() {
  t = openTestEngine();
  const s = await t.run('sessions.create', { projectId: 'alpha' });
  await t.run('facts.add', { sessionId: s.id, text: 'kafka streams run on three brokers', scope: 'project' });
  return s.id;
}

describe('the prestarted read-lane worker', () => {
  it('is started for mcp and serve only', async () => {
    ensureBuilt();
    expect(prestartReadLaneWorker(OUT_MAIN, ['sessions', 'list'], compileCache())).toBeNull();
    expect(prestartReadLaneWorker(OUT_MAIN, ['facts', 'add', 'mcp'], compileCache())).toBeNull();
    const prestarted = prestartReadLaneWorker(OUT_MAIN, ['mcp', '--project', 'alpha'], compileCache());
    expect(prestarted?.worker).toBeInstanceOf(Worker);
    await prestarted!.worker!.terminate();
  });

  it('is adopted by the read lane, told its data home, and answers its requests', async () => {
    ensureBuilt();
    const sessionId = await storeWithOneFact();
    const prestarted = prestartReadLaneWorker(OUT_MAIN, ['mcp'], compileCache())!;
    const launch = { readLaneWorker: prestarted };
    (globalThis as Record<symbol, unknown>)[LAUNCH] = launch;
    lane = createReadLane({ dbPath: t!.engine.paths.db, wikiDir: t!.engine.paths.wiki, size: 1 });
    lane.warm();
    expect((await lane.recall(sessionId, 'kafka streams brokers')).facts).toHaveLength(1);
    expect(await lane.ping()).toBeGreaterThan(0);
    expect(launch.readLaneWorker).toBeNull();
    expect(lane.workers()).toBe(1);
    // The lane's one worker is the prestarted one: stopping it from outside leaves the lane none.
    await prestarted.worker!.terminate();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lane.workers()).toBe(0);
    // And a request then starts a fresh one of its own.
    expect((await lane.recall(sessionId, 'kafka streams brokers')).facts).toHaveLength(1);
    expect(lane.workers()).toBe(1);
  });

  it('that failed to start is dropped: the lane starts its own worker and answers', async () => {
    ensureBuilt();
    const sessionId = await storeWithOneFact();
    const failing = new Worker('process.exit(3)', { eval: true });
    const prestarted = { worker: failing, failed: null as Error | null };
    failing.on('exit', (code) => (prestarted.failed ??= new Error(`exit code ${code}`)));
    await new Promise((resolve) => failing.once('exit', resolve));
    (globalThis as Record<symbol, unknown>)[LAUNCH] = { readLaneWorker: prestarted };
    lane = createReadLane({ dbPath: t!.engine.paths.db, wikiDir: t!.engine.paths.wiki, size: 1 });
    expect((await lane.recall(sessionId, 'kafka streams brokers')).facts).toHaveLength(1);
    expect(lane.workers()).toBe(1);
  });

  it('refuses a task that comes before its data home', async () => {
    ensureBuilt();
    const prestarted = prestartReadLaneWorker(OUT_MAIN, ['serve'], compileCache())!;
    const worker = prestarted.worker!;
    const answer = new Promise<{ ok: boolean; error?: { message: string } }>((resolve) =>
      worker.once('message', resolve),
    );
    worker.postMessage({ id: 1, task: 'ping', args: {} });
    expect(await answer).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/before its data home/) },
    });
    await worker.terminate();
  });
});
