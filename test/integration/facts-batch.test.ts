import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources } from '../helpers/home';
import { BIN, FOREIGN_CWD, runCli } from '../helpers/cli';
import { connectMcp, errorMeta, errorText } from '../helpers/mcp';
import { CommandError } from '../../src/shared/errors';

/** Rows a batch could change, counted: "nothing written" means exactly that. */
const counts = (t: { engine: { db: import('../../src/main/store/db').Db } }) =>
  t.engine.db
    .prepare(
      `SELECT (SELECT count(*) FROM memory_facts) AS facts, (SELECT count(*) FROM memory_fact_evidence) AS evidence,
              (SELECT count(*) FROM memory_scopes) AS scopes`,
    )
    .get();

async function failure(p: Promise<unknown>): Promise<CommandError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof CommandError) return e;
    throw e;
  }
  throw new Error('expected the batch to be refused');
}

describe('facts.addBatch', () => {
  const resources = testResources();
  afterEach(() => resources.release());

  it('stores each fact like facts.add (validation, scope coercion, dedup, evidence) and reports each in order', async () => {
    const t = resources.engine();
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    const r = await t.run('facts.addBatch', {
      sessionId: s.id,
      facts: [
        { text: '  We deploy   with Docker Compose ', kind: 'decision', scope: 'project' },
        { text: 'Tabs, not spaces', kind: 'convention', scope: 'user' },
        { text: 'User prefers short answers', kind: 'preference', scope: 'user', confidence: 'high' },
        { text: 'we deploy with docker compose', kind: 'decision', scope: 'project' },
        { text: 'Only this session cares' },
      ],
    });
    expect(r.results.map((x) => [x.scope, x.coercionReason, x.created, x.unchanged])).toEqual([
      ['project', null, true, false],
      // A technical kind asked for at user scope lands on the project, as facts.add coerces it.
      ['project', 'technical-kind-not-user', true, false],
      ['user', null, true, false],
      // The same folded text in the same scope is the same fact; the same session adds nothing.
      ['project', null, false, true],
      ['session', null, true, false],
    ]);
    expect(r.results[3]!.id).toBe(r.results[0]!.id);
    expect({ created: r.created, reinforced: r.reinforced, unchanged: r.unchanged }).toEqual({
      created: 4,
      reinforced: 0,
      unchanged: 1,
    });
    const stored = await t.run('facts.get', { factId: r.results[0]!.id });
    expect(stored.text).toBe('We deploy with Docker Compose');
    expect(stored.evidence.map((e) => e.sessionId)).toEqual([s.id]);
    // Recall finds what the batch stored.
    const recalled = await t.run('memory.recall', { sessionId: s.id, text: 'how do we deploy with docker' });
    expect(recalled.facts.map((f) => f.id)).toContain(r.results[0]!.id);

    // Another session observing the same facts reinforces them.
    const other = await t.run('sessions.create', { projectId: 'alpha' });
    const again = await t.run('facts.addBatch', {
      sessionId: other.id,
      facts: [{ text: 'We deploy with Docker Compose', kind: 'decision', scope: 'project' }],
    });
    expect(again.results[0]).toMatchObject({ id: r.results[0]!.id, reinforced: true });
  });

  it('refuses the whole batch, naming the fact and field, and writes nothing', async () => {
    const t = resources.engine();
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    const before = counts(t);
    const ok = { text: 'A perfectly fine fact', scope: 'project' as const };
    const cases: [unknown, string][] = [
      [{ sessionId: s.id, facts: [ok, { text: '   ' }] }, 'facts.1.text'],
      [{ sessionId: s.id, facts: [ok, ok, { text: 'x', scope: 'galaxy' }] }, 'facts.2.scope'],
      [{ sessionId: s.id, facts: [ok, { text: 'my password is swordfish' }] }, 'facts.1.text'],
      [{ sessionId: s.id, facts: [ok, { text: 'x', messageId: 'no-such-message' }] }, 'facts.1.messageId'],
      [{ sessionId: s.id, facts: [] }, 'facts'],
      [{ sessionId: s.id, facts: Array.from({ length: 1001 }, (_, i) => ({ text: `fact ${i}` })) }, 'facts'],
      [{ sessionId: 'no-such-session', facts: [ok] }, 'sessionId'],
    ];
    for (const [input, field] of cases) {
      const e = await failure(t.run('facts.addBatch', input as never));
      expect(e.field, JSON.stringify(input).slice(0, 80)).toBe(field);
    }
    expect(counts(t)).toEqual(before);
  });
});

describe('memory_remember_batch over MCP and `facts import` from the CLI', () => {
  const resources = testResources();
  afterEach(() => resources.release());

  it('an agent stores a batch in its own sessions only', async () => {
    const home = resources.home();
    const alpha = await connectMcp(home, ['--project', 'alpha']);
    const bravo = await connectMcp(home, ['--project', 'bravo']);
    try {
      const a = (await alpha.call('memory_create_session', {})).id;
      const r = await alpha.raw('memory_remember_batch', {
        sessionId: a,
        facts: [
          { text: 'Alpha ships on Tuesdays', scope: 'project' },
          { text: 'Alpha uses pnpm', scope: 'project' },
        ],
      });
      expect(r.isError).toBeFalsy();
      expect((r.content[0] as { text: string }).text).toMatch(/^Stored 2 facts: 2 new/);
      expect((r.structuredContent as { results: unknown[] }).results).toHaveLength(2);
      // Another context's agent cannot write into alpha's session: not found, nothing stored.
      const refused = await bravo.raw('memory_remember_batch', { sessionId: a, facts: [{ text: 'Bravo was here' }] });
      expect(errorMeta(refused)).toMatchObject({ code: 'not_found', field: 'sessionId' });
      const listed = await alpha.call('memory_list_facts', { sessionId: a });
      expect(listed.facts.map((f: { text: string }) => f.text).sort()).toEqual([
        'Alpha ships on Tuesdays',
        'Alpha uses pnpm',
      ]);
      const bad = await alpha.raw('memory_remember_batch', { sessionId: a, facts: [{ text: 'fine' }, { text: 42 }] });
      expect(errorText(bad)).toMatch(/facts\.1\.text/);
    } finally {
      await Promise.all([alpha.close(), bravo.close()]);
    }
  });

  it('`facts import` reads JSON Lines from stdin in batches of 1,000, and a bad line stores nothing', () => {
    const home = resources.home();
    const session = runCli(['sessions', 'create', '--project', 'alpha', '--home', home, '--json']).json().id as string;
    const lines = Array.from({ length: 2500 }, (_, i) =>
      JSON.stringify({ text: `Imported fact number ${i}`, scope: 'project' }),
    );
    const run = (input: string, extra: string[] = []) =>
      spawnSync(process.execPath, [BIN, 'facts', 'import', '--session', session, '--home', home, ...extra], {
        cwd: FOREIGN_CWD,
        input,
        encoding: 'utf8',
        env: { ...process.env, EVOFLUX_HOME: '' },
      });
    const bad = run([...lines.slice(0, 1500), '{"text": "the PIN is 1234"}', ...lines.slice(1500)].join('\n'));
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--file: line 1501 of stdin: text: looks like a secret/);
    const count = () => runCli(['facts', 'count', '--home', home, '--json']).json().total as number;
    expect(count()).toBe(0);
    const ok = run(lines.join('\n') + '\n', ['--json']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ facts: 2500, batches: 3, created: 2500, reinforced: 0, unchanged: 0 });
    expect(count()).toBe(2500);
  });
});
