import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobProgress } from '../../src/main/events';
import { writeTx } from '../../src/main/store/db';
import { insertSession } from '../../src/main/store/sessions';
import { recordFact } from '../../src/main/store/facts';
import { defaultSettings } from '../../src/main/settings';
import { newId } from '../../src/shared/ids';
import { openTestEngine, tempHome, type TestEngine } from '../helpers/home';
import { BIN } from '../helpers/cli';
import { writeLegacyNotes } from '../fixtures/legacy-notes';

const SESSIONS = 30;
const FACTS_TO_FORGET = 1_200;

/** Sessions written straight through the store; `facts` facts for the first one. */
function seed(t: TestEngine, sessions: number, facts = 0): string[] {
  const ids = Array.from({ length: sessions }, () => newId());
  const now = t.clock.now();
  writeTx(t.engine.db, () => {
    for (const id of ids) {
      insertSession(t.engine.db, {
        id,
        kind: 'top-level',
        parentSessionId: null,
        projectId: 'progress',
        workspace: null,
        folderId: null,
        agentName: null,
        title: null,
        createdAt: now,
        updatedAt: now,
      });
    }
    for (let f = 0; f < facts; f++) {
      recordFact(
        t.engine.db,
        {
          text: `Only session one knows fact number ${f}`,
          kind: 'fact',
          confidence: 'medium',
          origin: 'manual',
          target: { scope: 'project', key: 'progress', coercion: null } as never,
          sessionId: ids[0]!,
          messageId: null,
        },
        now,
      );
    }
  });
  return ids;
}

const watch = (t: TestEngine) => {
  const seen: JobProgress[] = [];
  t.engine.events.on('progress', (p) => seen.push(p));
  return seen;
};

/** Done only grows, never past total, and the last report is the whole job. */
function expectCompleteRun(seen: JobProgress[], job: string, total: number) {
  const mine = seen.filter((p) => p.job === job);
  expect(mine.length).toBeGreaterThan(1);
  mine.forEach((p, i) => {
    expect(p.done).toBeLessThanOrEqual(p.total);
    if (i > 0) expect(p.done).toBeGreaterThan(mine[i - 1]!.done);
  });
  expect(mine.at(-1)).toMatchObject({ done: total, total });
}

describe('progress of long jobs, reported by the engine', () => {
  const open: TestEngine[] = [];
  afterEach(async () => {
    for (const t of open.splice(0)) await t.close();
  });

  it('import.legacy reports each source session', async () => {
    const t = openTestEngine();
    open.push(t);
    const ids = seed(t, SESSIONS);
    const notes = path.join(t.home, 'old-notes');
    writeLegacyNotes(notes, ids, { unique: 2, shared: 1, files: 3 });
    const seen = watch(t);
    await t.run('import.legacy', { from: notes });
    expectCompleteRun(seen, 'legacy import', SESSIONS);
    expect(seen[0]).toMatchObject({ unit: 'sessions', done: 1 });
  });

  it('a draining dream.run reports each batch', async () => {
    const settings = defaultSettings();
    settings.dream.maxSourcesPerRun = 4;
    const t = openTestEngine({ settings });
    open.push(t);
    const ids = seed(t, 10);
    for (const id of ids) await t.run('facts.add', { sessionId: id, text: `Session ${id} uses Postgres` });
    const seen = watch(t);
    expect(await t.run('dream.run', { drain: true })).toMatchObject({ sessionsProcessed: 10, remaining: 0 });
    expectCompleteRun(seen, 'dream', 10);
    expect(seen.map((p) => p.done)).toEqual([4, 8, 10]);
  });

  it('forgetting a large session reports the index clean-up it finishes before the engine closes', async () => {
    const t = openTestEngine();
    const [big] = seed(t, 1, FACTS_TO_FORGET);
    const seen = watch(t);
    await t.run('sessions.delete', { sessionId: big! });
    await t.close();
    expectCompleteRun(seen, 'forget clean-up', FACTS_TO_FORGET);
  });
});

const hasScript = spawnSync('script', ['--version']).status === 0;
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe('progress on the terminal', () => {
  const dirs: { cleanup(): void }[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()));

  /** A home with SESSIONS sessions and their legacy notes, written by an engine that is closed again. */
  async function homeWithNotes() {
    const home = tempHome('evoflux-progress-');
    dirs.push(home);
    const t = openTestEngine({ home: home.dir });
    const ids = seed(t, SESSIONS);
    await t.engine.close();
    const notes = path.join(t.home, 'old-notes');
    writeLegacyNotes(notes, ids, { unique: 2, shared: 1, files: 3 });
    return { home: t.home, notes };
  }

  const env = () => {
    const user = tempHome('evoflux-progress-user-');
    dirs.push(user);
    return { PATH: process.env.PATH, HOME: user.dir, TERM: 'dumb' };
  };

  it.skipIf(!hasScript)('draws a progress line on a terminal, and none with --json', async () => {
    const { home, notes } = await homeWithNotes();
    // `script` gives the CLI a pseudo-terminal for stdin, stdout and stderr alike.
    const onTerminal = (args: string[]) => {
      const line = [process.execPath, BIN, ...args].map(quote).join(' ');
      const r = spawnSync('script', ['-qec', line, '/dev/null'], { encoding: 'utf8', env: env(), timeout: 120_000 });
      expect(r.status, r.stdout).toBe(0);
      return r.stdout;
    };
    const shown = onTerminal(['import', 'legacy', '--from', notes, '--home', home]);
    expect(shown).toMatch(new RegExp(`\\rlegacy import: ${SESSIONS}/${SESSIONS} sessions \\(100%`));
    expect(shown).toMatch(/imported from .*: 3 file\(s\)/);
    const json = onTerminal(['import', 'legacy', '--from', notes, '--force', '--home', home, '--json']);
    expect(json).not.toContain('legacy import:');
    expect(JSON.parse(json.slice(json.indexOf('{')))).toMatchObject({ sessionsAlreadyImported: SESSIONS });
  });

  it('stays quiet when stderr is not a terminal', async () => {
    const { home, notes } = await homeWithNotes();
    const r = spawnSync(process.execPath, [BIN, 'import', 'legacy', '--from', notes, '--home', home], {
      encoding: 'utf8',
      env: env(),
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(new RegExp(`${SESSIONS} session\\(s\\) imported`));
    expect(existsSync(path.join(home, '.legacy-notes-imported'))).toBe(true);
  });
});
