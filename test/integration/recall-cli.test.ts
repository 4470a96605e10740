import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { tempHome } from '../helpers/home';

const home = tempHome();
afterAll(() => home.cleanup());
const cli = (...args: string[]) => runCli([...args, '--home', home.dir]);

describe('recall and search CLI', () => {
  it('recalls and searches through the real CLI, with --json', () => {
    const a = cli('sessions', 'add', '--project', 'alpha', '--json').json();
    const b = cli('sessions', 'add', '--project', 'beta', '--json').json();
    expect(
      cli('facts', 'add', '--session', a.id, '--scope', 'project', 'Feature flags live in LaunchDarkly').status,
    ).toBe(0);
    expect(cli('facts', 'add', '--session', b.id, '--scope', 'project', 'Feature flags live in env files').status).toBe(
      0,
    );

    const r = cli('recall', '--session', a.id, '--json', 'where do feature flags live');
    expect(r.status).toBe(0);
    const recalled = r.json();
    expect(recalled.facts.map((f: { text: string }) => f.text)).toEqual(['Feature flags live in LaunchDarkly']);
    expect(recalled.block).toContain('<memory_data>');

    const text = cli('recall', '--session', a.id, 'ok');
    expect(text.stdout).toContain('abstained');

    const s = cli('search', '--session', b.id, '--sources', 'facts', '--limit', '3', '--json', 'feature flags');
    expect(s.status).toBe(0);
    expect(s.json().results.map((h: { snippet: string }) => h.snippet)).toEqual(['Feature flags live in env files']);

    const human = cli('search', '--session', a.id, 'feature flags');
    expect(human.stdout).toContain('excerpt: Feature flags live in LaunchDarkly');

    const bad = cli('search', '--session', a.id, '--limit', '99', 'flags');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('limit');
    expect(cli('recall', '--session', a.id).status).toBe(1);
  });

  it('runs a turn through the CLI', () => {
    const s = cli('sessions', 'add', '--json').json();
    const begin = cli('turns', 'begin', '--session', s.id, '--json', 'hello memory system');
    expect(begin.status).toBe(0);
    expect(begin.json().userMessage.content).toBe('hello memory system');
    const done = cli('turns', 'complete', '--session', s.id, '--json', 'hello human');
    expect(done.json().completedResponses).toBe(1);
  });
});
