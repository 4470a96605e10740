import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { tempHome } from '../helpers/home';

describe('CLI: sessions, messages, facts, forget', () => {
  const home = tempHome();
  afterAll(() => home.cleanup());
  const cli = (...args: string[]) => runCli([...args, '--home', home.dir]);

  it('runs a whole flow with --json and human output', () => {
    const a = cli('sessions', 'add', '--project', 'p1', '--title', 'First', '--json');
    expect(a.status).toBe(0);
    const s1 = a.json();
    expect(s1).toMatchObject({ kind: 'top-level', projectId: 'p1', title: 'First' });
    const s2 = cli('sessions', 'add', '--project', 'p1', '--json').json();
    const m = cli('messages', 'add', '--session', s1.id, '--role', 'user', 'We', 'use', 'Bun', '--json').json();
    expect(m).toMatchObject({ seq: 1, content: 'We use Bun' });
    const f1 = cli(
      'facts',
      'add',
      '--session',
      s1.id,
      '--message',
      m.id,
      '--scope',
      'user',
      '--kind',
      'decision',
      'Use Bun',
      '--json',
    ).json();
    expect(f1.fact).toMatchObject({
      scope: 'project',
      requestedScope: 'user',
      coercionReason: 'technical-kind-not-user',
    });
    cli('facts', 'add', '--session', s2.id, '--scope', 'project', '--kind', 'decision', 'use bun');
    cli('facts', 'add', '--session', s1.id, '--scope', 'project', 'Only in one');

    const list = cli('facts', 'list', '--scope', 'project', '--scope-key', 'p1', '--json').json();
    expect(list.facts.map((f: { text: string }) => f.text)).toEqual(['Use Bun', 'Only in one']);
    const human = cli('facts', 'list');
    expect(human.stdout).toMatch(/ID\s+SCOPE\s+KIND/);
    expect(human.stdout).toContain('Use Bun');
    const show = cli('facts', 'show', '--fact', f1.fact.id);
    expect(show.stdout).toContain('reinforcement: 2');
    expect(show.stdout).toContain(`message #1 ${m.id}: We use Bun`);

    const dry = cli('sessions', 'delete', '--session', s1.id, '--dry-run');
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(/would delete 1 fact/);
    expect(dry.stdout).toMatch(/would keep 1 fact/);
    const del = cli('sessions', 'delete', '--session', s1.id, '--json').json();
    expect(del.deleted.map((f: { text: string }) => f.text)).toEqual(['Only in one']);
    expect(cli('facts', 'list', '--json').json().facts).toHaveLength(1);
  });

  it('exits non-zero with a one-line error for bad input, and writes nothing', () => {
    const before = cli('facts', 'list', '--json').json().facts.length;
    const cases: [string[], RegExp][] = [
      [['sessions', 'show', '--session', 'nope'], /session not found: nope/],
      [['facts', 'add', '--session', 'nope', 'text'], /session not found: nope/],
      [['facts', 'list', '--scope', 'planet'], /^evoflux-memory: --scope: /],
      [['sessions', 'add', '--workspace', 'not/absolute'], /workspace: must be an absolute path/],
      [['facts', 'list', '--limit', 'ten'], /^evoflux-memory: --limit: .*expected number/],
      [['facts', 'show'], /^evoflux-memory: --fact-id: is required/],
      [['sessions', 'add', '--frobnicate'], /Unknown option '--frobnicate'/],
    ];
    for (const [args, pattern] of cases) {
      const r = cli(...args);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
      expect(r.stdout).toBe('');
    }
    const bad = cli('facts', 'show', '--fact', 'x', '--json');
    expect(JSON.parse(bad.stderr)).toEqual({
      error: { code: 'not_found', message: 'fact not found: x', field: 'factId', flag: '--fact' },
    });
    expect(cli('facts', 'list', '--json').json().facts.length).toBe(before);
    const unknown = cli('flarp');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown command 'flarp'/);
  });

  it('honours EVOFLUX_HOME when --home is absent', () => {
    const other = tempHome();
    try {
      const r = runCli(['sessions', 'add', '--title', 'env', '--json'], { EVOFLUX_HOME: other.dir });
      expect(r.status).toBe(0);
      const listed = runCli(['sessions', 'list', '--home', other.dir, '--json']).json();
      expect(listed.sessions.map((s: { title: string }) => s.title)).toEqual(['env']);
    } finally {
      other.cleanup();
    }
  });
});
