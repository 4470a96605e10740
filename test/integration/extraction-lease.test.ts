import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openTestEngine, tempHome, type TestEngine } from '../helpers/home';
import { BIN } from '../helpers/cli';
import { ManualClock } from '../../src/shared/clock';
import { defaultSettings, type Settings } from '../../src/main/settings';
import { backoffDelay } from '../../src/main/memory/extraction/cursor';
import { getCursor } from '../../src/main/store/extraction-states';
import { memoriesReply, startLlmServer } from '../fixtures/extraction-llm-server';

let server: Awaited<ReturnType<typeof startLlmServer>>;
beforeAll(async () => (server = await startLlmServer()));
afterAll(() => server.close());

const homes: { cleanup(): void }[] = [];
const engines: TestEngine[] = [];
afterEach(async () => {
  server.reset();
  for (const e of engines.splice(0)) await e.engine.close();
  for (const h of homes.splice(0)) h.cleanup();
});

function llmSettings(): Settings {
  const s = defaultSettings();
  s.llm.baseUrl = server.url;
  s.llm.model = 'test-model';
  s.llm.maxRetries = 0;
  s.llm.timeoutMs = 20_000;
  s.extraction.retrySweepMs = 0;
  return s;
}

function engineOn(home: string, clock: ManualClock, settings = llmSettings()) {
  const t = openTestEngine({ home, clock, settings });
  engines.push(t);
  return t;
}

const newHome = () => {
  const h = tempHome();
  homes.push(h);
  return h.dir;
};

async function sessionWithTurns(t: TestEngine, turns: number) {
  const s = await t.run('sessions.create', { projectId: 'p1' });
  for (let n = 1; n <= turns; n++) {
    await t.run('messages.add', { sessionId: s.id, role: 'user', content: `Question ${n}` });
    await t.run('messages.add', { sessionId: s.id, role: 'assistant', content: `Answer ${n}` });
  }
  return s.id;
}

const hold = () => {
  let release!: () => void;
  const until = new Promise<void>((r) => (release = r));
  return { until, release };
};

describe('lease between two real processes', () => {
  it('a live lease held by one CLI process refuses a second one; the first completes', async () => {
    const home = newHome();
    const setup = engineOn(home, new ManualClock(Date.now()));
    const sessionId = await sessionWithTurns(setup, 2);
    await setup.engine.close();
    engines.splice(0);
    writeFileSync(
      path.join(home, 'settings.yaml'),
      stringify({ llm: { baseUrl: server.url, model: 'test-model', maxRetries: 0 } }),
    );

    const held = hold();
    server.enqueue({
      ...memoriesReply([{ content: 'The API is versioned under /v2.', kind: 'fact', scope: 'project', message: 2 }]),
      until: held.until,
    });
    const arrived = server.nextRequest();
    const first = spawn(process.execPath, [BIN, 'extract', 'run', '--session', sessionId, '--home', home, '--json'], {
      env: { ...process.env, EVOFLUX_HOME: '' },
    });
    let firstOut = '';
    first.stdout.on('data', (d) => (firstOut += d));
    const firstExit = new Promise<number | null>((resolve) => first.on('exit', resolve));
    await arrived; // the first process holds the lease and waits on the model

    const second = spawnSync(process.execPath, [BIN, 'extract', 'run', '--session', sessionId, '--home', home], {
      encoding: 'utf8',
      env: { ...process.env, EVOFLUX_HOME: '' },
    });
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/already running \(lease held by [^ ]+:\d+:/);
    const status = spawnSync(
      process.execPath,
      [BIN, 'extract', 'status', '--session', sessionId, '--home', home, '--json'],
      {
        encoding: 'utf8',
        env: { ...process.env, EVOFLUX_HOME: '' },
      },
    );
    const row = JSON.parse(status.stdout).sessions[0];
    expect(row).toMatchObject({ status: 'processing', leaseLive: true, attempts: 1 });
    expect(row.leaseOwner).toContain(`:${first.pid}:`);

    held.release();
    expect(await firstExit).toBe(0);
    expect(JSON.parse(firstOut)).toMatchObject({ outcome: 'stored', factsStored: 1 });
    const check = engineOn(home, new ManualClock(Date.now()));
    expect(getCursor(check.engine.db, sessionId)).toMatchObject({
      status: 'idle',
      leaseOwner: null,
      attempts: 1,
      cursorSeq: 4,
    });
    const facts = await check.run('facts.list', { sessionId });
    expect(facts.facts.map((f) => f.text)).toEqual(['The API is versioned under /v2.']);
    const evidence = (await check.run('facts.get', { factId: facts.facts[0]!.id })).evidence;
    expect(evidence).toHaveLength(1);
    expect(evidence[0]!.messageSeq).toBe(2);
  });
});

describe('stale lease, injected clock', () => {
  it('an expired lease is reclaimed by the next claim and the outdated run cannot overwrite it', async () => {
    const home = newHome();
    const clockA = new ManualClock();
    const a = engineOn(home, clockA);
    const sessionId = await sessionWithTurns(a, 1);
    const held = hold();
    server.enqueue({
      ...memoriesReply([{ content: 'Stale run fact', kind: 'fact', scope: 'project' }]),
      until: held.until,
    });
    const arrived = server.nextRequest();
    const runA = a.run('extraction.run', { sessionId });
    await arrived;

    const clockB = new ManualClock(clockA.now());
    const b = engineOn(home, clockB);
    await expect(b.run('extraction.run', { sessionId })).rejects.toMatchObject({ code: 'busy' });
    clockB.advance(llmSettings().extraction.leaseMs + 1);
    server.enqueue(memoriesReply([{ content: 'Fresh run fact', kind: 'fact', scope: 'project' }]));
    expect(await b.run('extraction.run', { sessionId })).toMatchObject({ outcome: 'stored', factsStored: 1 });

    held.release();
    expect(await runA).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/lease lost/) });
    const facts = await b.run('facts.list', { sessionId });
    expect(facts.facts.map((f) => f.text)).toEqual(['Fresh run fact']);
    expect(getCursor(b.engine.db, sessionId)).toMatchObject({ status: 'idle', attempts: 2, lastError: null });
  });

  it('on startup an expired processing lease becomes failed and due now; a live one is left alone', async () => {
    const home = newHome();
    const clock = new ManualClock();
    const a = engineOn(home, clock);
    const sessionId = await sessionWithTurns(a, 1);
    const held = hold();
    server.enqueue({ ...memoriesReply([]), until: held.until });
    const arrived = server.nextRequest();
    const runA = a.run('extraction.run', { sessionId });
    await arrived;

    const early = engineOn(home, new ManualClock(clock.now() + 1000));
    expect(getCursor(early.engine.db, sessionId)!.status).toBe('processing');
    const lateClock = new ManualClock(clock.now() + llmSettings().extraction.leaseMs + 1);
    const late = engineOn(home, lateClock);
    const state = getCursor(late.engine.db, sessionId)!;
    expect(state).toMatchObject({ status: 'failed', leaseOwner: null, nextAttemptAt: lateClock.now(), cursorSeq: 0 });
    expect(state.lastError).toMatch(/lease expired/);
    held.release();
    expect(await runA).toMatchObject({ outcome: 'failed' });
    // The reclaimed cursor is due at once: a retry sweep runs it.
    server.enqueue(memoriesReply([{ content: 'Recovered fact', kind: 'fact', scope: 'project' }]));
    const results = await late.engine.extraction.retryDue();
    expect(results.map((r) => r.outcome)).toEqual(['stored']);
  });
});

describe('failure and retry', () => {
  it('a failed run leaves the cursor, records the error and backs off; retry after the backoff succeeds', async () => {
    const home = newHome();
    const clock = new ManualClock();
    const settings = llmSettings();
    const t = engineOn(home, clock, settings);
    const sessionId = await sessionWithTurns(t, 2);
    server.enqueue({ status: 500, rawBody: '' });
    const before = server.requests.length;
    await t.run('messages.add', { sessionId, role: 'user', content: 'Question 3' });
    await t.run('messages.add', { sessionId, role: 'assistant', content: 'Answer 3' }); // 3rd response: due
    await Promise.all(t.engine.extraction.pending());
    expect(server.requests.length - before).toBe(1);
    let state = getCursor(t.engine.db, sessionId)!;
    expect(state).toMatchObject({
      status: 'failed',
      cursorSeq: 0,
      lastResponseCount: 0,
      attempts: 1,
      consecutiveFailures: 1,
    });
    expect(state.lastError).toMatch(/HTTP 500/);
    expect(state.nextAttemptAt).toBe(clock.now() + settings.extraction.retryBaseMs);

    // The 4th response is still due, but the backoff holds it back: no request is made.
    await t.run('messages.add', { sessionId, role: 'assistant', content: 'Answer 4' });
    await Promise.all(t.engine.extraction.pending());
    expect(await t.engine.extraction.retryDue()).toEqual([]);
    expect(server.requests.length - before).toBe(1);

    // A second failure doubles the wait.
    clock.advance(settings.extraction.retryBaseMs);
    server.enqueue({ content: 'not json at all' });
    expect((await t.engine.extraction.retryDue())[0]).toMatchObject({
      outcome: 'failed',
      error: expect.stringMatching(/invalid JSON/),
    });
    state = getCursor(t.engine.db, sessionId)!;
    expect(state).toMatchObject({
      consecutiveFailures: 2,
      cursorSeq: 0,
      nextAttemptAt: clock.now() + 2 * settings.extraction.retryBaseMs,
    });

    clock.advance(2 * settings.extraction.retryBaseMs);
    server.enqueue(
      memoriesReply([{ content: 'We ship on Tuesdays.', kind: 'decision', scope: 'project', message: 5 }]),
    );
    const [ok] = await t.engine.extraction.retryDue();
    expect(ok).toMatchObject({ outcome: 'stored', factsStored: 1, cursorSeq: 7 });
    expect(getCursor(t.engine.db, sessionId)).toMatchObject({
      status: 'idle',
      consecutiveFailures: 0,
      lastError: null,
      nextAttemptAt: null,
      lastResponseCount: 4,
      attempts: 3,
    });
  });

  it('extraction.retry runs a failed cursor now, whatever the backoff; it refuses a cursor that is not failed', async () => {
    const t = engineOn(newHome(), new ManualClock());
    const sessionId = await sessionWithTurns(t, 1);
    server.enqueue(memoriesReply(Array.from({ length: 9 }, (_, i) => ({ content: `fact ${i}` }))));
    expect(await t.run('extraction.run', { sessionId })).toMatchObject({
      outcome: 'failed',
      error: expect.stringMatching(/memories/),
    });
    server.enqueue(
      memoriesReply([{ content: 'Deploys go through the release branch.', kind: 'convention', scope: 'project' }]),
    );
    expect(await t.run('extraction.retry', { sessionId })).toMatchObject({ outcome: 'stored', factsStored: 1 });
    await expect(t.run('extraction.retry', { sessionId })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('backoff is exponential and bounded', () => {
    const b = { baseMs: 1000, maxMs: 10_000 };
    expect([1, 2, 3, 4, 5, 50].map((n) => backoffDelay(n, b))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
  });
});

describe('shutdown drain', () => {
  it('close waits for a running extraction up to drainMs, then cancels it: failed, due now, cursor unchanged', async () => {
    const home = newHome();
    const clock = new ManualClock();
    const settings = llmSettings();
    settings.extraction.drainMs = 50;
    const t = openTestEngine({ home, clock, settings });
    const sessionId = await sessionWithTurns(t, 2);
    const held = hold();
    server.enqueue({ ...memoriesReply([{ content: 'never stored' }]), until: held.until });
    const arrived = server.nextRequest();
    await t.run('messages.add', { sessionId, role: 'assistant', content: 'Answer 3' });
    await arrived;
    const [run] = t.engine.extraction.pending();
    await t.engine.close();
    expect(await run).toMatchObject({ outcome: 'failed', error: 'cancelled during shutdown' });
    held.release();

    const after = engineOn(home, clock);
    expect(getCursor(after.engine.db, sessionId)).toMatchObject({
      status: 'failed',
      lastError: 'cancelled during shutdown',
      cursorSeq: 0,
      nextAttemptAt: clock.now(),
      consecutiveFailures: 0,
      leaseOwner: null,
    });
    expect((await after.run('facts.list', { sessionId })).facts).toEqual([]);
  });

  it('a run that finishes within the bound is committed before the database closes', async () => {
    const home = newHome();
    const clock = new ManualClock();
    const t = openTestEngine({ home, clock, settings: llmSettings() });
    const sessionId = await sessionWithTurns(t, 2);
    server.enqueue({ ...memoriesReply([{ content: 'Drained fact', kind: 'fact', scope: 'project' }]), delayMs: 100 });
    const arrived = server.nextRequest();
    await t.run('messages.add', { sessionId, role: 'assistant', content: 'Answer 3' });
    await arrived;
    await t.engine.close();
    const after = engineOn(home, clock);
    expect(getCursor(after.engine.db, sessionId)).toMatchObject({ status: 'idle', factsStored: 1 });
  });
});

describe('responses that complete while a run is in flight', () => {
  /** Awaits background extraction until none is left (a finished run may start the next). */
  async function settle(t: TestEngine) {
    for (let i = 0; i < 10; i++) {
      const pending = t.engine.extraction.pending();
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }

  it('makes the session due again: the window the run never read is extracted once it ends', async () => {
    const t = engineOn(newHome(), new ManualClock());
    const before = server.requests.length;
    const held = hold();
    server.enqueue({
      ...memoriesReply([{ content: 'The API is versioned under /v2.', kind: 'fact', scope: 'project', message: 2 }]),
      until: held.until,
    });
    const arrived = server.nextRequest();
    const sessionId = await sessionWithTurns(t, 3); // the 3rd response starts the first run
    await arrived; // it has read turns 1-3 and waits on the model
    for (let n = 4; n <= 13; n++) {
      await t.run('messages.add', { sessionId, role: 'user', content: `We use tool number ${n} for builds.` });
      await t.run('messages.add', { sessionId, role: 'assistant', content: `Answer ${n}` });
    }
    server.enqueue(memoriesReply([{ content: 'Builds use tool number 13.', kind: 'fact', scope: 'project' }]));
    held.release();
    await settle(t);

    const requests = server.requests.slice(before);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.body.messages.at(-1).content).toContain('tool number 13');
    expect(getCursor(t.engine.db, sessionId)).toMatchObject({ status: 'idle', lastResponseCount: 13, attempts: 2 });
    const facts = await t.run('facts.list', { sessionId });
    expect(facts.facts.map((f) => f.text).sort()).toEqual([
      'Builds use tool number 13.',
      'The API is versioned under /v2.',
    ]);
  });

  it('does not run again when nothing completed meanwhile', async () => {
    const t = engineOn(newHome(), new ManualClock());
    const before = server.requests.length;
    const sessionId = await sessionWithTurns(t, 3);
    await settle(t);
    for (let n = 4; n <= 12; n++) {
      await t.run('messages.add', { sessionId, role: 'user', content: `Question ${n}` });
      await t.run('messages.add', { sessionId, role: 'assistant', content: `Answer ${n}` });
      await settle(t);
    }
    expect(server.requests.slice(before)).toHaveLength(1);
    expect(getCursor(t.engine.db, sessionId)).toMatchObject({ lastResponseCount: 3, attempts: 1 });
  });
});
