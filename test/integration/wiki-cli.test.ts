import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { tempHome } from '../helpers/home';

let home: { dir: string; cleanup(): void };
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.cleanup());

const cli = (...args: string[]) => runCli([...args, '--home', home.dir]);

describe('wiki and dream CLI', () => {
  // 22 real CLI processes, each compiling its TypeScript on start: about 1.7 s apiece on an idle
  // 2-core machine, several times that when other test files share the cores. The budget bounds
  // a hang; no assertion here depends on time.
  it('runs Dream, shows status, tree, pages, lint and exports facts by scope', { timeout: 300_000 }, () => {
    const s = cli('sessions', 'add', '--project', 'acme', '--title', 'Setup', '--json').json();
    cli('messages', 'add', '--session', s.id, '--role', 'user', 'We deploy with Docker Compose');
    expect(
      cli('facts', 'add', '--session', s.id, '--scope', 'project', '--kind', 'decision', 'Deploys use Docker Compose')
        .status,
    ).toBe(0);
    expect(
      cli('facts', 'add', '--session', s.id, '--scope', 'user', '--kind', 'preference', 'Likes short answers').status,
    ).toBe(0);
    expect(cli('wiki', 'note', 'Remember the Compose file lives in ops/').status).toBe(0);

    const before = cli('dream', 'status', '--json').json();
    expect(before).toMatchObject({
      running: false,
      enabled: false,
      schedule: '0 2 * * *',
      pendingSessions: 1,
      pendingNotes: 1,
    });

    const tree0 = cli('wiki', 'tree', '--unprocessed', '--json').json();
    expect(tree0.notes).toHaveLength(1);

    const run = cli('dream', 'run');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/1 session\(s\), 1 note\(s\) processed; 0 failed; \d+ page\(s\) written; 0 remaining/);
    expect(cli('dream', 'run', '--json').json()).toMatchObject({ status: 'completed', sessionsProcessed: 0 });

    const after = cli('dream', 'status', '--json').json();
    expect(after).toMatchObject({ pendingSessions: 0, pendingNotes: 0 });
    expect(after.lastRuns[0].summary).toMatch(/^dream \| sessions=1 notes=1 failed=0 drain=true$/);

    const tree = cli('wiki', 'tree', '--json').json();
    expect(tree.system.map((e: { path: string }) => e.path)).toEqual(['USER.md', 'INDEX.md', 'LOG.md', 'LINT.md']);
    expect(tree.sources).toHaveLength(2);
    expect(cli('wiki', 'tree', '--unprocessed', '--json').json().notes).toEqual([]);

    const sourcePath = tree.sources.find((e: { path: string }) => e.path.startsWith('sources/session-')).path;
    const page = cli('wiki', 'read', '--path', sourcePath);
    expect(page.stdout).toContain('Deploys use Docker Compose');

    const bad = cli('wiki', 'read', '--path', '../memory.db', '--json');
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stderr).error).toMatchObject({ code: 'invalid_input', field: 'path' });
    expect(cli('wiki', 'delete', '--path', 'USER.md').stderr).toContain('Refusing to delete protected wiki file');

    const lint = cli('wiki', 'lint', '--json').json();
    expect(lint.issues).toBe(0);
    expect(cli('dream', 'lint').stdout).toContain('0 issues');

    const dir = path.join(home.dir, 'out');
    const exported = cli('wiki', 'export', '--dir', dir, '--json').json();
    expect(exported).toMatchObject({ dir, facts: 2 });
    expect(exported.pages.map((p: { scope: string }) => p.scope).sort()).toEqual(['project', 'user']);
    const user = readFileSync(path.join(dir, 'user.md'), 'utf8');
    expect(user).toContain('Likes short answers');
    expect(user).toContain(s.id);
    expect(existsSync(path.join(dir, 'INDEX.md'))).toBe(true);
    expect(cli('wiki', 'export', '--json').json().dir).toBe(path.join(home.dir, 'wiki-export'));

    const cfg = cli('dream', 'config', '--enabled', 'true', '--schedule', '30 4 * * *', '--json').json();
    expect(cfg).toEqual({ enabled: true, schedule: '30 4 * * *' });
    const status = cli('dream', 'status', '--json').json();
    expect(status).toMatchObject({ enabled: true, schedule: '30 4 * * *' });
    expect(status.nextRunAt).toBeGreaterThan(0);
    expect(cli('dream', 'config', '--schedule', 'every night').status).toBe(1);
  });
});
