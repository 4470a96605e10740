import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { CommandError } from '../../src/shared/errors';

const errorOf = async (p: Promise<unknown>): Promise<CommandError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof CommandError) return e;
    throw e;
  }
  throw new Error('expected the call to fail');
};

const countFacts = (t: TestEngine) =>
  (t.engine.db.prepare('SELECT count(*) AS n FROM memory_facts').get() as { n: number }).n;

describe('agent commands are confined to the calling session', () => {
  let t: TestEngine;
  let alpha: string; // project alpha, workspace /srv/shared
  let beta: string; // project beta, same workspace
  let gamma: string; // project gamma, nothing shared
  let ids: Record<string, string>;

  beforeEach(async () => {
    t = openTestEngine();
    alpha = (await t.run('sessions.create', { projectId: 'alpha', workspace: '/srv/shared' })).id;
    beta = (await t.run('sessions.create', { projectId: 'beta', workspace: '/srv/shared' })).id;
    gamma = (await t.run('sessions.create', { projectId: 'gamma', folderId: 'f-gamma' })).id;
    const add = async (
      sessionId: string,
      scope: 'user' | 'project' | 'workspace' | 'folder' | 'session',
      text: string,
      kind = 'decision',
    ) => (await t.run('facts.add', { sessionId, scope, text, kind: kind as 'decision' })).fact.id;
    ids = {
      alphaProject: await add(alpha, 'project', 'Alpha deploys with blue green releases'),
      alphaSession: await add(alpha, 'session', 'Alpha session is debugging the login form'),
      sharedWorkspace: await add(beta, 'workspace', 'The shared workspace pins Node 20'),
      betaProject: await add(beta, 'project', 'Beta deploys with canary releases'),
      gammaProject: await add(gamma, 'project', 'Gamma secret roadmap lives in Notion'),
      gammaFolder: await add(gamma, 'folder', 'Gamma folder keeps invoices'),
      userPreference: await add(gamma, 'user', 'Prefers answers in British English', 'preference'),
    };
  });
  afterEach(() => t.close());

  it("memory.facts lists exactly the session's visible scopes, whatever the filters", async () => {
    const all = await t.run('memory.facts', { sessionId: alpha, limit: 200 });
    expect(all.facts.map((f) => f.id).sort()).toEqual(
      [ids.alphaProject, ids.alphaSession, ids.sharedWorkspace, ids.userPreference].sort(),
    );
    // A text filter cannot reach past the scope filter.
    expect((await t.run('memory.facts', { sessionId: alpha, text: 'Gamma' })).facts).toEqual([]);
    expect((await t.run('memory.facts', { sessionId: alpha, text: 'canary' })).facts).toEqual([]);
    // Narrowing to a scope type uses the session's own key only.
    const projectOnly = await t.run('memory.facts', { sessionId: alpha, scope: 'project' });
    expect(projectOnly.facts.map((f) => f.id)).toEqual([ids.alphaProject]);
    expect((await t.run('memory.facts', { sessionId: alpha, scope: 'folder' })).facts).toEqual([]);
    // Caller-supplied scope keys are not accepted at all.
    const err = await errorOf(
      t.run('memory.facts', { sessionId: alpha, scope: 'project', scopeKey: 'gamma' } as never),
    );
    expect(err.code).toBe('invalid_input');
    expect(err.field).toBe('scopeKey');
  });

  it('pages through visible facts only', async () => {
    for (let i = 0; i < 7; i++) {
      await t.run('facts.add', { sessionId: alpha, scope: 'project', text: `alpha convention number ${i}` });
      await t.run('facts.add', { sessionId: gamma, scope: 'project', text: `gamma convention number ${i}` });
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await t.run('memory.facts', { sessionId: alpha, limit: 3, sort: 'recency', cursor });
      seen.push(...page.facts.map((f) => f.text));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(11);
    expect(new Set(seen).size).toBe(11);
    expect(seen.filter((s) => s.startsWith('gamma') || s.startsWith('Gamma'))).toEqual([]);
  });

  it('merges the visible scopes in reinforcement order across pages, ties broken by id', async () => {
    const helpers = [];
    for (let i = 0; i < 4; i++)
      helpers.push((await t.run('sessions.create', { projectId: 'alpha', workspace: '/srv/shared' })).id);
    // Reinforcement 1..5 spread over project, workspace, session and user scopes.
    const plan: [string, 'project' | 'workspace' | 'session' | 'user', number][] = [
      ['project five', 'project', 5],
      ['workspace four', 'workspace', 4],
      ['project three', 'project', 3],
      ['user three', 'user', 3],
      ['workspace two', 'workspace', 2],
      ['project two', 'project', 2],
    ];
    for (const [text, scope, n] of plan) {
      for (const s of [alpha, ...helpers].slice(0, n)) {
        await t.run('facts.add', { sessionId: s, scope, text, kind: scope === 'user' ? 'preference' : 'fact' });
      }
    }
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await t.run('memory.facts', { sessionId: alpha, limit: 2, cursor });
      pages.push(page.facts.map((f) => `${f.reinforcement}:${f.text}`));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const flat = pages.flat();
    const expected = (await t.run('memory.facts', { sessionId: alpha, limit: 200 })).facts;
    expect(flat).toEqual(expected.map((f) => `${f.reinforcement}:${f.text}`));
    const reinforcements = expected.map((f) => f.reinforcement);
    expect(reinforcements).toEqual([...reinforcements].sort((a, b) => b - a));
    expect(flat.slice(0, 2)).toEqual(['5:project five', '4:workspace four']);
    // The four original facts of alpha's scopes (reinforcement 1) close the list.
    expect(flat).toHaveLength(plan.length + 4);
    expect(flat.some((s) => s.includes('Gamma') || s.includes('canary'))).toBe(false);
    // Equal reinforcement: descending id, whichever scope the fact is in.
    const threes = expected.filter((f) => f.reinforcement === 3).map((f) => f.id);
    expect(threes).toEqual([...threes].sort().reverse());
  });

  it("a team member sees its lead's context, a side chat too", async () => {
    const member = (await t.run('sessions.create', { kind: 'team-member', parentSessionId: alpha })).id;
    const side = (await t.run('sessions.create', { kind: 'side-chat', parentSessionId: member })).id;
    for (const s of [member, side]) {
      const ids2 = (await t.run('memory.facts', { sessionId: s, limit: 200 })).facts.map((f) => f.id);
      expect(ids2).toContain(ids.alphaSession);
      expect(ids2).toContain(ids.alphaProject);
      expect(ids2).not.toContain(ids.betaProject);
    }
  });

  it("memory.forget refuses another project's fact exactly like a missing one, and changes nothing", async () => {
    const before = countFacts(t);
    for (const foreign of [ids.gammaProject, ids.gammaFolder, ids.betaProject]) {
      const err = await errorOf(t.run('memory.forget', { sessionId: alpha, factId: foreign }));
      expect(err.code).toBe('not_found');
      expect(err.field).toBe('factId');
      expect(err.message).toBe(`fact not found: ${foreign}`);
      const dry = await errorOf(t.run('memory.forget', { sessionId: alpha, factId: foreign, dryRun: true }));
      expect(dry.code).toBe('not_found');
    }
    const missing = await errorOf(
      t.run('memory.forget', { sessionId: alpha, factId: '01900000-0000-7000-8000-000000000000' }),
    );
    expect(missing.code).toBe('not_found');
    expect(countFacts(t)).toBe(before);
    expect((await t.run('facts.get', { factId: ids.gammaProject })).text).toContain('Gamma');
  });

  it('memory.forget removes a visible fact with its evidence; a dry run only reports', async () => {
    const dry = await t.run('memory.forget', { sessionId: alpha, factId: ids.sharedWorkspace, dryRun: true });
    expect(dry).toMatchObject({
      dryRun: true,
      evidenceRemoved: 1,
      fact: { id: ids.sharedWorkspace, scope: 'workspace' },
    });
    expect((await t.run('facts.get', { factId: ids.sharedWorkspace })).id).toBe(ids.sharedWorkspace);

    const done = await t.run('memory.forget', { sessionId: alpha, factId: ids.sharedWorkspace });
    expect(done.dryRun).toBe(false);
    expect((await errorOf(t.run('facts.get', { factId: ids.sharedWorkspace }))).code).toBe('not_found');
    const evidence = t.engine.db
      .prepare(
        'SELECT count(*) AS n FROM memory_fact_evidence WHERE fact_seq = (SELECT seq FROM memory_facts WHERE id = ?)',
      )
      .get(ids.sharedWorkspace) as { n: number };
    expect(evidence.n).toBe(0);
    // Gone for the other project on the same workspace as well: it was one shared fact.
    const betaSees = (await t.run('memory.facts', { sessionId: beta, limit: 200 })).facts.map((f) => f.id);
    expect(betaSees).not.toContain(ids.sharedWorkspace);
  });

  it('an unknown session is not found, and bad input names the field', async () => {
    expect((await errorOf(t.run('memory.facts', { sessionId: 'nope' }))).code).toBe('not_found');
    expect((await errorOf(t.run('memory.forget', { sessionId: 'nope', factId: ids.alphaProject }))).code).toBe(
      'not_found',
    );
    expect((await errorOf(t.run('memory.facts', { sessionId: alpha, limit: 0 }))).field).toBe('limit');
    expect((await errorOf(t.run('memory.facts', { sessionId: alpha, cursor: 'garbage' }))).field).toBe('cursor');
    expect((await errorOf(t.run('memory.forget', { sessionId: alpha } as never))).field).toBe('factId');
  });
});
