import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources } from '../helpers/home';
import { BIN, runCli } from '../helpers/cli';
import { FileLock } from '../../src/main/wiki/file-lock';
import { sessionSourceSlug } from '../../src/main/dream/source-page';

const sourcePagePath = (id: string) => `sources/${sessionSourceSlug(id)}.md`;

const read = (home: string, sql: string): unknown[] => {
  const db = new Database(path.join(home, 'memory.db'), { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
};

const bytes = (home: string) =>
  Buffer.concat(
    ['memory.db', 'memory.db-wal']
      .map((f) => path.join(home, f))
      .filter(existsSync)
      .map((f) => readFileSync(f)),
  );

/**
 * The forget commits, then its wiki clean-up waits for the wiki lock (held here, as a Dream run in
 * another process would); the process is killed right there. The next start finishes the job:
 * the source page and the Dream bullets go, and then the disk scrub runs.
 */
describe('a forget killed between its commit and its clean-up', () => {
  const resources = testResources();
  afterEach(() => resources.release());

  it('finishes the wiki clean-up and the disk scrub on the next start', async () => {
    const home = resources.home();
    const owner = resources.engine({ home });
    const doomed = await owner.run('sessions.create', { projectId: 'orchard', title: 'Quandrel talks' });
    const other = await owner.run('sessions.create', { projectId: 'orchard' });
    await owner.run('messages.add', { sessionId: doomed.id, role: 'user', content: 'We pick the Quandrel pears' });
    const gone = await owner.run('facts.add', {
      sessionId: doomed.id,
      scope: 'project',
      kind: 'decision',
      text: 'Quandrel pears are picked in October',
    });
    await owner.run('facts.add', {
      sessionId: other.id,
      scope: 'project',
      kind: 'decision',
      text: 'Orchard ladders are inspected weekly',
    });
    await owner.run('dream.run', { drain: true });
    await owner.engine.close();
    const group = (await import('node:fs'))
      .readdirSync(path.join(home, 'wiki', 'topics'))
      .find((n) => n.startsWith('project-orchard'))!;
    const groupPage = () => readFileSync(path.join(home, 'wiki', 'topics', group), 'utf8');
    expect(groupPage()).toContain(`<!-- fact:${gone.fact.id} -->`);
    expect(existsSync(path.join(home, 'wiki', sourcePagePath(doomed.id)))).toBe(true);

    const lock = new FileLock(path.join(home, 'locks', 'wiki-write'));
    const held = (await lock.acquire('test holds the wiki', 5_000))!;
    expect(held).not.toBeNull();
    const child = spawn(process.execPath, [BIN, 'sessions', 'delete', '--session', doomed.id, '--home', home], {
      env: { ...process.env, EVOFLUX_HOME: '' },
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_c, signal) => resolve(signal)));
    try {
      const deadline = Date.now() + 60_000;
      while (read(home, `SELECT 1 FROM sessions WHERE id = '${doomed.id}'`).length && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(read(home, `SELECT 1 FROM sessions WHERE id = '${doomed.id}'`)).toEqual([]);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    } finally {
      await held.release();
    }
    // Killed between commit and clean-up: the forget is durable, the wiki untouched, both steps queued.
    expect(
      read(home, 'SELECT step FROM forget_follow_ups ORDER BY id').map((r) => (r as { step: string }).step),
    ).toEqual(['wiki', 'wiki', 'disk']);
    expect(groupPage()).toContain('Quandrel pears');
    expect(existsSync(path.join(home, 'wiki', sourcePagePath(doomed.id)))).toBe(true);

    // The next start (any command) finishes both before it exits.
    const next = runCli(['wiki', 'tree', '--home', home, '--json']);
    expect(next.status, next.stderr).toBe(0);
    expect(existsSync(path.join(home, 'wiki', sourcePagePath(doomed.id)))).toBe(false);
    expect(groupPage()).not.toContain('Quandrel');
    expect(groupPage()).toContain('Orchard ladders are inspected weekly');
    expect(read(home, 'SELECT * FROM forget_follow_ups')).toEqual([]);
    for (const trace of ['Quandrel', 'quandrel', doomed.id]) expect(bytes(home).includes(trace), trace).toBe(false);
  });
});
