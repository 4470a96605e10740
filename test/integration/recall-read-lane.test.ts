import { afterEach, describe, expect, it, vi } from 'vitest';
import path from 'node:path';
import { createReadLane, readLaneWorkerFile, type ReadLane } from '../../src/main/workers/read-lane';
import { openTestEngine, tempHome, type TestEngine } from '../helpers/home';
import { openLaneReader, runReadTask } from '../../src/main/workers/read-lane-tasks';
import { LANE_CACHE_KIB, readTx } from '../../src/main/store/db';
import { insertSession } from '../../src/main/store/sessions';
import type { SessionRecord } from '../../src/shared/schemas';

let lane: ReadLane | null = null;
let t: TestEngine | null = null;
afterEach(async () => {
  await lane?.close();
  await t?.close();
  lane = null;
  t = null;
});

/**
 * Whether a call is answered in this turn of the event loop (on the calling thread) or later: a
 * worker's answer is a message from another thread and never comes before the next turn.
 */
const answeredWhen = (call: Promise<unknown>) =>
  Promise.race([call.then(() => 'answer'), new Promise((r) => setImmediate(() => r('next turn')))]);

describe('read lane', () => {
  it('runs the .ts worker under tsx, named by an absolute path, from any working directory', async () => {
    const w = readLaneWorkerFile();
    expect(w.file.endsWith(path.join('workers', 'read-lane.worker.ts'))).toBe(true);
    expect(w.execArgv[0]).toBe('--require');
    expect(path.isAbsolute(w.execArgv[1]!)).toBe(true);
    t = openTestEngine();
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    await t.run('facts.add', { sessionId: s.id, text: 'kafka streams run on three brokers', scope: 'project' });
    const elsewhere = tempHome('evoflux-cwd-');
    const cwd = process.cwd();
    process.chdir(elsewhere.dir);
    try {
      lane = createReadLane({ dbPath: t.engine.paths.db, wikiDir: t.engine.paths.wiki, size: 1 });
      expect((await lane.recall(s.id, 'kafka streams brokers')).facts).toHaveLength(1);
    } finally {
      process.chdir(cwd);
      elsewhere.cleanup();
    }
  });

  it('warm: requests that come before the worker has started are answered on the calling thread, then by the worker', async () => {
    t = openTestEngine();
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    await t.run('facts.add', { sessionId: s.id, text: 'kafka streams run on three brokers', scope: 'project' });
    lane = createReadLane({ dbPath: t.engine.paths.db, wikiDir: t.engine.paths.wiki, size: 1 });
    lane.warm();
    expect(await answeredWhen(lane.recall(s.id, 'kafka streams brokers'))).toBe('answer');
    expect((await lane.recall(s.id, 'kafka streams brokers')).facts).toHaveLength(1);
    await expect(lane.recall('no-such-session', 'kafka')).rejects.toMatchObject({ code: 'not_found' });
    expect(await lane.ping()).toBeGreaterThan(0);
    expect(await answeredWhen(lane.recall(s.id, 'kafka streams brokers'))).toBe('next turn');
    expect((await lane.search({ sessionId: s.id, query: 'kafka brokers', limit: 5, sources: ['facts'] })).length).toBe(
      1,
    );
  });

  it('rest: stops every idle worker; a warm lane warms again on its next request, answered inline meanwhile', async () => {
    t = openTestEngine();
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    await t.run('facts.add', { sessionId: s.id, text: 'kafka streams run on three brokers', scope: 'project' });
    lane = createReadLane({ dbPath: t.engine.paths.db, wikiDir: t.engine.paths.wiki, size: 2, extraIdleMs: 3_600_000 });
    const byWorker = () =>
      expect
        .poll(() => answeredWhen(lane!.recall(s.id, 'kafka streams brokers')), { timeout: 10_000 })
        .toBe('next turn');
    lane.warm();
    await byWorker(); // the worker has primed
    await Promise.all(Array.from({ length: 12 }, () => lane!.recall(s.id, 'kafka streams brokers')));
    expect(lane.workers()).toBe(2);
    // Not while a request is in flight.
    const inFlight = lane.recall(s.id, 'kafka streams brokers');
    expect(lane.rest()).toBe(0);
    await inFlight;
    expect(lane.rest()).toBe(2);
    expect(lane.workers()).toBe(0);
    expect(lane.rest()).toBe(0);
    // Woken: the first request is answered on this thread while a worker starts and primes.
    expect(await answeredWhen(lane.recall(s.id, 'kafka streams brokers'))).toBe('answer');
    expect(lane.workers()).toBe(1);
    expect((await lane.search({ sessionId: s.id, query: 'kafka brokers', limit: 5, sources: ['facts'] })).length).toBe(
      1,
    );
    await byWorker(); // once the new worker has primed, the workers answer again
    expect(lane.workers()).toBeGreaterThan(0);
  });

  it('rest: a lane that was never warmed starts its worker on demand again, as a CLI command does', async () => {
    t = openTestEngine();
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    await t.run('facts.add', { sessionId: s.id, text: 'kafka streams run on three brokers', scope: 'project' });
    lane = createReadLane({ dbPath: t.engine.paths.db, wikiDir: t.engine.paths.wiki, size: 1 });
    expect((await lane.recall(s.id, 'kafka streams brokers')).facts).toHaveLength(1);
    expect(lane.rest()).toBe(1);
    const next = lane.recall(s.id, 'kafka streams brokers');
    expect(await answeredWhen(next)).toBe('next turn');
    expect((await next).facts).toHaveLength(1);
    expect(lane.workers()).toBe(1);
  });

  it('maps worker errors: a missing session is not_found, a broken database is internal', async () => {
    t = openTestEngine();
    await expect(t.engine.readLane.recall('no-such-session', 'kafka streams')).rejects.toMatchObject({
      code: 'not_found',
    });
    const home = tempHome();
    lane = createReadLane({ dbPath: path.join(home.dir, 'missing.db'), wikiDir: home.dir, size: 1 });
    await expect(lane.recall('s', 'kafka streams')).rejects.toMatchObject({ code: 'internal' });
    home.cleanup();
  });

  it('answers concurrent requests across workers and refuses work once closed', async () => {
    t = openTestEngine();
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    await t.run('facts.add', { sessionId: s.id, text: 'kafka streams run on three brokers', scope: 'project' });
    lane = createReadLane({ dbPath: t.engine.paths.db, wikiDir: t.engine.paths.wiki, size: 2 });
    const results = await Promise.all(Array.from({ length: 40 }, () => lane!.recall(s.id, 'kafka streams brokers')));
    expect(results.every((r) => r.facts.length === 1)).toBe(true);
    await lane.close();
    await expect(lane.recall(s.id, 'kafka streams brokers')).rejects.toMatchObject({ code: 'unavailable' });
  });
});

describe('read lane warm-up', () => {
  it('answers the schema version even when empty, then primes in steps: a recall per sample fact, then a search (one source a step)', async () => {
    const { openLaneReader, primeSteps, runReadTask } = await import('../../src/main/workers/read-lane-tasks');
    const { warmUpSample } = await import('../../src/main/store/warm-up');
    t = openTestEngine();
    const empty = openLaneReader(t.engine.paths.db);
    expect(warmUpSample(empty)).toBeNull();
    expect(runReadTask(empty, t.engine.paths.wiki, { task: 'warm', args: {} })).toBeGreaterThan(0);
    expect(primeSteps(empty, t.engine.paths.wiki)).toEqual({ recalls: [], searches: [] });
    empty.close();
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    await t.run('facts.add', { sessionId: s.id, text: 'kafka streams run on three brokers', scope: 'project' });
    const db = openLaneReader(t.engine.paths.db);
    // Read through its own bounded cache, not a memory map that every commit elsewhere remaps.
    expect(db.pragma('mmap_size', { simple: true })).toBe(0);
    expect(db.pragma('cache_size', { simple: true })).toBe(-LANE_CACHE_KIB);
    expect(warmUpSample(db)).toEqual({ sessionId: s.id, texts: ['kafka streams run on three brokers'] });
    expect(runReadTask(db, t.engine.paths.wiki, { task: 'warm', args: {} })).toBeGreaterThan(0);
    const steps = primeSteps(db, t.engine.paths.wiki);
    const { SEARCH_SOURCES } = await import('../../src/main/memory/search');
    expect(steps.recalls).toHaveLength(1);
    expect(steps.searches).toHaveLength(SEARCH_SOURCES.length);
    // Each step runs its recall or search: the statements they need get prepared.
    const prepared = new Set<string>();
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      prepared.add(sql);
      return prepare(sql);
    }) as typeof db.prepare;
    steps.recalls[0]!();
    expect([...prepared].some((sql) => /memory_facts_fts/.test(sql))).toBe(true);
    const afterRecall = prepared.size;
    for (const searchStep of steps.searches) searchStep();
    expect(prepared.size).toBeGreaterThan(afterRecall);
    db.close();
  });
});

describe('read lane size', () => {
  it('starts a second worker only when requests overlap, and stops the idle extra again', async () => {
    t = openTestEngine();
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    await t.run('facts.add', { sessionId: s.id, text: 'kafka streams run on three brokers', scope: 'project' });
    lane = createReadLane({ dbPath: t.engine.paths.db, wikiDir: t.engine.paths.wiki, size: 2, extraIdleMs: 3_600_000 });
    for (let i = 0; i < 5; i++) await lane.recall(s.id, 'kafka streams brokers');
    expect(lane.workers()).toBe(1);
    const burst = () => Promise.all(Array.from({ length: 20 }, () => lane!.recall(s.id, 'kafka streams brokers')));
    expect((await burst()).every((r) => r.facts.length === 1)).toBe(true);
    expect(lane.workers()).toBe(2);
    expect(lane.retireIdleExtras()).toBe(1);
    expect(lane.workers()).toBe(1);
    expect(lane.retireIdleExtras()).toBe(0);
    expect((await burst()).every((r) => r.facts.length === 1)).toBe(true);
    expect(lane.workers()).toBe(2);
  });

  it('an idle extra worker stops by itself once its idle time has passed', async () => {
    t = openTestEngine();
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    lane = createReadLane({ dbPath: t.engine.paths.db, wikiDir: t.engine.paths.wiki, size: 2, extraIdleMs: 0 });
    await Promise.all(Array.from({ length: 10 }, () => lane!.recall(s.id, 'kafka streams brokers')));
    await vi.waitFor(() => expect(lane!.workers()).toBe(1), { timeout: 5_000, interval: 10 });
    expect((await lane.recall(s.id, 'kafka streams brokers')).abstained).toBe(false);
  });
});

describe('a read-lane task', () => {
  it('reads one snapshot: a write committed while it runs is not half seen', async () => {
    t = openTestEngine();
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    await t.run('facts.add', { sessionId: s.id, text: 'kafka streams run on three brokers', scope: 'project' });
    const reader = openLaneReader(t.engine.paths.db);
    const engine = t.engine;
    const count = () => (reader.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
    const other = { kind: 'top-level', parentSessionId: null, projectId: 'beta', workspace: null, folderId: null };
    try {
      const seen = readTx(reader, () => {
        const before = count();
        // Another connection commits in the middle of the task (the writer, on this thread).
        insertSession(engine.db, {
          ...other,
          id: 'other',
          agentName: null,
          title: null,
          createdAt: 1,
          updatedAt: 1,
        } as SessionRecord);
        return [before, count()];
      });
      expect(seen[0]).toBe(seen[1]);
      expect(count()).toBe(seen[0]! + 1);
      // Every task of the lane runs so: a recall over the same connection still answers.
      const answer = runReadTask(reader, engine.paths.wiki, {
        task: 'recall',
        args: { sessionId: s.id, text: 'kafka streams brokers' },
      });
      expect((answer as { facts: unknown[] }).facts.length).toBeGreaterThan(0);
      expect(reader.inTransaction).toBe(false);
    } finally {
      reader.close();
    }
  });
});
