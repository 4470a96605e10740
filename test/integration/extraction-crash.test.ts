import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openTestEngine, tempHome } from '../helpers/home';
import { BIN, runCli } from '../helpers/cli';
import { ManualClock } from '../../src/shared/clock';
import { defaultSettings } from '../../src/main/settings';
import { getCursor } from '../../src/main/store/extraction-states';
import { memoriesReply, startLlmServer } from '../fixtures/extraction-llm-server';

/** The model server lives in this process, so a CLI that calls it must not block our event loop. */
function runCliAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, EVOFLUX_HOME: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

let server: Awaited<ReturnType<typeof startLlmServer>>;
beforeAll(async () => (server = await startLlmServer()));
afterAll(() => server.close());

describe('SIGKILL mid-extraction, then restart', () => {
  it('commits nothing from the killed run, reclaims its lease, and never duplicates evidence', async () => {
    const home = tempHome();
    try {
      writeFileSync(
        path.join(home.dir, 'settings.yaml'),
        stringify({ llm: { baseUrl: server.url, model: 'm', maxRetries: 0 } }),
      );
      const session = runCli(['sessions', 'add', '--project', 'p1', '--home', home.dir, '--json']).json();
      const say = (role: string, text: string) => {
        const r = runCli(['messages', 'add', '--session', session.id, '--role', role, text, '--home', home.dir]);
        expect(r.status, r.stderr).toBe(0);
      };
      say('user', 'Deploys go through the release branch.');
      say('assistant', 'Okay.');

      // Run 1 completes in its own process.
      server.enqueue(
        memoriesReply([
          { content: 'Deploys go through the release branch.', kind: 'convention', scope: 'project', message: 1 },
        ]),
      );
      const run1 = await runCliAsync(['extract', 'run', '--session', session.id, '--home', home.dir, '--json']);
      expect(run1.status, run1.stderr).toBe(0);
      expect(JSON.parse(run1.stdout)).toMatchObject({ outcome: 'stored', factsStored: 1, cursorSeq: 2 });

      say('user', 'We decided to keep the API on /v2.');
      say('assistant', 'Noted.');

      // Run 2 is killed while it holds the lease and waits on the model.
      let release!: () => void;
      server.enqueue({
        ...memoriesReply([{ content: 'never committed' }]),
        until: new Promise<void>((r) => (release = r)),
      });
      const arrived = server.nextRequest();
      const child = spawn(process.execPath, [BIN, 'extract', 'run', '--session', session.id, '--home', home.dir], {
        env: { ...process.env, EVOFLUX_HOME: '' },
        stdio: 'ignore',
      });
      const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      await arrived;
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      release();

      // Restart in-process after the lease has expired: startup reclaims it.
      const clock = new ManualClock(Date.now() + defaultSettings().extraction.leaseMs + 1000);
      const t = openTestEngine({ home: home.dir, clock });
      try {
        const reclaimed = getCursor(t.engine.db, session.id)!;
        expect(reclaimed).toMatchObject({ status: 'failed', cursorSeq: 2, attempts: 2, leaseOwner: null });
        expect(reclaimed.lastError).toContain(`:${child.pid}:`);
        expect((await t.run('facts.list', { sessionId: session.id })).facts.map((f) => f.text)).toEqual([
          'Deploys go through the release branch.',
        ]);

        // The retry re-reads only the window after the cursor; the model repeats an old fact.
        server.enqueue(
          memoriesReply([
            { content: 'Deploys go through the release branch.', kind: 'convention', scope: 'project', message: 3 },
            { content: 'We decided to keep the API on /v2.', kind: 'decision', scope: 'project', message: 3 },
          ]),
        );
        const retry = await t.run('extraction.retry', { sessionId: session.id });
        expect(retry).toMatchObject({
          outcome: 'stored',
          factsStored: 2,
          factsCreated: 1,
          factsReinforced: 0,
          messagesRead: 2,
        });
        const evidence = t.engine.db
          .prepare('SELECT fact_seq, count(*) AS n FROM memory_fact_evidence GROUP BY fact_seq')
          .all() as { n: number }[];
        expect(evidence).toHaveLength(2);
        expect(evidence.every((e) => e.n === 1)).toBe(true);
        const facts = (await t.run('facts.list', { sessionId: session.id })).facts;
        expect(facts.map((f) => [f.text, f.reinforcement]).sort()).toEqual([
          ['Deploys go through the release branch.', 1],
          ['We decided to keep the API on /v2.', 1],
        ]);
        expect(getCursor(t.engine.db, session.id)).toMatchObject({ status: 'idle', cursorSeq: 4, attempts: 3 });
      } finally {
        await t.engine.close();
      }
    } finally {
      home.cleanup();
    }
  });
});
