import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { BIN } from '../helpers/cli';
import { child } from './dream-child-process';
import { DreamLock } from '../../src/main/dream/run-lock';
import { FileLock } from '../../src/main/wiki/file-lock';
import { DeterministicConsolidator } from '../../src/main/dream/deterministic';
import { parsePage } from '../../src/main/wiki/front-matter';
import { manualDream, sessionWith } from '../unit/dream-fixtures';
import { writeTx } from '../../src/main/store/db';
import { appendMessage } from '../../src/main/store/messages';
import { insertSession } from '../../src/main/store/sessions';
import { recordFact } from '../../src/main/store/facts';
import { newId } from '../../src/shared/ids';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine();
});
afterEach(() => t.close());

function cliAsync(args: string[]) {
  const p = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, EVOFLUX_HOME: '' },
  });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    p.on('exit', (code) => resolve({ code, out, err })),
  );
}

/** Many sessions with facts, written straight through the store (fast). */
function seed(engine: TestEngine['engine'], sessions: number, factsEach: number, projects = 5): string[] {
  const ids: string[] = [];
  let now = Date.UTC(2026, 0, 1);
  writeTx(engine.db, () => {
    for (let i = 0; i < sessions; i++) {
      const id = newId();
      ids.push(id);
      const projectId = `p${i % projects}`;
      insertSession(engine.db, {
        id,
        kind: 'top-level',
        parentSessionId: null,
        projectId,
        workspace: null,
        folderId: null,
        agentName: null,
        title: `session ${i}`,
        createdAt: now,
        updatedAt: now,
      });
      const m = appendMessage(
        engine.db,
        { id: newId(), sessionId: id, role: 'user', content: `question ${i} `.repeat(20) },
        ++now,
      );
      appendMessage(engine.db, { id: newId(), sessionId: id, role: 'assistant', content: `answer ${i}` }, ++now);
      for (let f = 0; f < factsEach; f++) {
        recordFact(
          engine.db,
          {
            text: `Fact ${f % 7} about topic ${(i * 7 + f) % 97} from ${i}`,
            kind: f % 2 ? 'decision' : 'convention',
            confidence: 'medium',
            origin: 'manual',
            target: { scope: 'project', key: projectId, coercion: null } as never,
            sessionId: id,
            messageId: m.id,
          },
          now,
        );
      }
    }
  });
  return ids;
}

/** Every knowledge page must be whole: front matter closed, body ends with a newline. */
function assertPagesWhole(wikiRoot: string): number {
  let n = 0;
  for (const section of ['topics', 'entities', 'sources', 'comparisons']) {
    for (const name of readdirSync(path.join(wikiRoot, section))) {
      if (!name.endsWith('.md')) continue;
      const text = readFileSync(path.join(wikiRoot, section, name), 'utf8');
      const page = parsePage(text);
      expect(page.data, `${section}/${name} has front matter`).not.toBeNull();
      expect(text.endsWith('\n'), `${section}/${name} is complete`).toBe(true);
      expect(page.body).toMatch(/^# /);
      n++;
    }
  }
  return n;
}

describe('Dream across processes', () => {
  it(
    'the app holding the Dream lock makes a CLI run report in progress, and vice versa',
    { timeout: 120_000 },
    async () => {
      await sessionWith(t, { facts: [{ text: 'a decision' }] });
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const inner = new DeterministicConsolidator(t.engine.db, t.engine.wiki);
      const dream = manualDream(t.engine, {
        consolidator: () => ({
          name: 'gated',
          consolidate: async (i, d) => {
            await gate;
            return inner.consolidate(i, d);
          },
        }),
      });
      const appRun = dream.run({ drain: true });
      const cli = await cliAsync(['dream', 'run', '--home', t.home, '--json']);
      expect(cli.code, cli.err).toBe(0);
      expect(JSON.parse(cli.out)).toMatchObject({ status: 'already_running', remaining: 1 });
      const status = await cliAsync(['dream', 'status', '--home', t.home, '--json']);
      expect(JSON.parse(status.out)).toMatchObject({ running: true });
      release();
      expect(await appRun).toMatchObject({ status: 'completed', sessionsProcessed: 1 });

      // Now another process holds it: the app reports in progress.
      await sessionWith(t);
      const holder = child(['hold-dream-lock', t.home]);
      await holder.line('LOCKED');
      expect(await t.run('dream.run', { drain: true })).toMatchObject({
        status: 'already_running',
        sessionsProcessed: 0,
        remaining: 1,
      });
      expect((await t.run('dream.status', {})).running).toBe(true);
      holder.proc.kill('SIGTERM');
      await holder.exited;
      expect(await t.run('dream.run', { drain: true })).toMatchObject({
        status: 'completed',
        sessionsProcessed: 1,
        remaining: 0,
      });
    },
  );

  it(
    'an app run and a CLI run started together: each session is consolidated exactly once',
    { timeout: 120_000 },
    async () => {
      const ids = seed(t.engine, 120, 3);
      const [app, cli] = await Promise.all([
        t.run('dream.run', { drain: true }),
        cliAsync(['dream', 'run', '--home', t.home, '--json']),
      ]);
      expect(cli.code, cli.err).toBe(0);
      const other = JSON.parse(cli.out);
      const results = [app, other];
      expect(results.some((r) => r.status === 'completed' && r.sessionsProcessed > 0)).toBe(true);
      expect(results.reduce((n, r) => n + r.sessionsProcessed, 0)).toBe(ids.length);
      expect((t.engine.db.prepare('SELECT count(*) AS n FROM dream_log').get() as { n: number }).n).toBe(ids.length);
      expect(t.engine.wiki.listSection('sources')).toHaveLength(ids.length);
      const log = readFileSync(path.join(t.engine.paths.wiki, 'LOG.md'), 'utf8');
      const sessionsLogged = [...log.matchAll(/dream \| sessions=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
      expect(sessionsLogged).toBe(ids.length);
      assertPagesWhole(t.engine.paths.wiki);
    },
  );

  it(
    'a Dream process SIGKILLed mid-run leaves no half-written page; the next run recovers its lock and completes',
    { timeout: 180_000 },
    async () => {
      const ids = seed(t.engine, 400, 8);
      writeFileSync(t.engine.paths.settings, 'dream:\n  maxSourcesPerRun: 10\n');
      const victim = child(['dream', t.home]);
      const sources = path.join(t.engine.paths.wiki, 'sources');
      // Wait until it is well into the run (some batches flushed), then kill it without warning.
      for (let i = 0; i < 6000 && readdirSync(sources).length < 60; i++) await new Promise((r) => setTimeout(r, 5));
      expect(readdirSync(sources).length).toBeGreaterThanOrEqual(60);
      victim.proc.kill('SIGKILL');
      await victim.exited;
      expect(victim.output()).toBe(''); // it never finished
      expect(existsSync(path.join(t.engine.paths.locks, 'dream-run.lock'))).toBe(true); // left behind by the dead process

      assertPagesWhole(t.engine.paths.wiki);
      const processedBefore = (t.engine.db.prepare('SELECT count(*) AS n FROM dream_log').get() as { n: number }).n;
      expect(processedBefore).toBeLessThan(ids.length);

      const r = await t.run('dream.run', { drain: true });
      expect(r).toMatchObject({ status: 'completed', failed: 0, remaining: 0 });
      expect(r.sessionsProcessed).toBe(ids.length - processedBefore);
      expect(t.engine.wiki.listSection('sources')).toHaveLength(ids.length);
      expect(assertPagesWhole(t.engine.paths.wiki)).toBeGreaterThan(ids.length);
      const leftovers = ['topics', 'sources'].flatMap((s) =>
        readdirSync(path.join(t.engine.paths.wiki, s)).filter((n) => !n.endsWith('.md')),
      );
      expect(leftovers).toEqual([]);
      // No fact bullet was duplicated by the repeated batch.
      for (const name of t.engine.wiki.listSection('topics')) {
        const anchors =
          readFileSync(path.join(t.engine.paths.wiki, 'topics', name), 'utf8').match(/<!-- fact:[^ ]+ -->/g) ?? [];
        expect(new Set(anchors).size).toBe(anchors.length);
      }
      const lint = await t.run('wiki.lint', {});
      expect(
        lint.findings.filter((f) => f.category === 'missing_front_matter' || f.category === 'index_drift'),
      ).toEqual([]);
    },
  );

  it(
    'recovers a stale Dream or wiki lock whose holder died, but never steals a live one',
    { timeout: 60_000 },
    async () => {
      for (const mode of ['hold-dream-lock', 'hold-wiki-lock'] as const) {
        const holder = child([mode, t.home]);
        await holder.line('LOCKED');
        const lock = () =>
          mode === 'hold-dream-lock'
            ? new DreamLock(t.engine.paths.locks).acquire(0)
            : new FileLock(path.join(t.engine.paths.locks, 'wiki-write')).acquire('t', 0);
        expect(await lock()).toBeNull();
        holder.proc.kill('SIGKILL');
        await holder.exited;
        const held = await lock();
        expect(held).not.toBeNull();
        expect(held!.owner.pid).toBe(process.pid);
        await held!.release();
      }
      await sessionWith(t);
      expect(await t.run('dream.run', { drain: true })).toMatchObject({ status: 'completed', sessionsProcessed: 1 });
    },
  );
});
