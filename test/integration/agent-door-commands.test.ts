import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { dispatch } from '../../src/main/commands/dispatch';
import { openEngine } from '../../src/main/engine';
import { AgentPrincipal, OWNER, type AgentContext } from '../../src/main/commands/principal';
import { CONFIRM_TTL_MS } from '../../src/main/commands/forget-confirm';
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

const agent = (c: Partial<AgentContext>) =>
  new AgentPrincipal({ projects: [], workspaces: [], folders: [], ...c }, 'test');

const page = (scopes: string[], title: string) =>
  `---\ndescription: ${title}\n${scopes.length ? `scopes: [${scopes.join(', ')}]\n` : ''}---\n# ${title}\n\nText.\n`;

describe('agent door commands: forget a session, wiki pages, recent activity', () => {
  let t: TestEngine;
  let alpha: string;
  let alpha2: string;
  let beta: string;

  beforeEach(async () => {
    t = openTestEngine();
    alpha = (await t.run('sessions.create', { projectId: 'alpha', workspace: '/srv/alpha', title: 'A1' })).id;
    alpha2 = (await t.run('sessions.create', { projectId: 'alpha', workspace: '/srv/alpha/api', title: 'A2' })).id;
    beta = (await t.run('sessions.create', { projectId: 'beta', title: 'B1' })).id;
  });
  afterEach(() => t.close());

  describe('memory.forgetSession', () => {
    it('changes nothing without confirm, then forgets exactly the plan with its token', async () => {
      const only = (await t.run('facts.add', { sessionId: alpha, text: 'Alpha uses tabs', scope: 'session' })).fact;
      const shared = (await t.run('facts.add', { sessionId: alpha, text: 'Alpha deploys Fridays', scope: 'project' }))
        .fact;
      await t.run('facts.add', { sessionId: alpha2, text: 'Alpha deploys Fridays', scope: 'project' });
      const plan = await t.run('memory.forgetSession', { sessionId: alpha });
      expect(plan).toMatchObject({ dryRun: true, sessionIds: [alpha], deleted: [{ id: only.id }] });
      expect(plan.kept).toEqual([
        expect.objectContaining({ id: shared.id, reinforcementAfter: 1, supportedBy: [alpha2], otherSupporters: 0 }),
      ]);
      expect(plan.confirmToken).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
      expect(plan.confirmBy).toBe(t.clock.now() + CONFIRM_TTL_MS);
      expect((await t.run('sessions.get', { sessionId: alpha })).id).toBe(alpha);

      const done = await t.run('memory.forgetSession', { sessionId: alpha, confirm: plan.confirmToken! });
      expect(done).toMatchObject({ dryRun: false, confirmToken: null, deleted: [{ id: only.id }] });
      expect((await errorOf(t.run('sessions.get', { sessionId: alpha }))).code).toBe('not_found');
      expect((await t.run('facts.get', { factId: shared.id })).reinforcement).toBe(1);
    });

    it('refuses a token when the plan changed, when it expired, or for another session', async () => {
      await t.run('facts.add', { sessionId: alpha, text: 'Alpha uses tabs', scope: 'session' });
      const plan = await t.run('memory.forgetSession', { sessionId: alpha });
      // A new message since the dry run: more would go than was shown.
      await t.run('messages.add', { sessionId: alpha, role: 'user', content: 'one more thing' });
      const changed = await errorOf(t.run('memory.forgetSession', { sessionId: alpha, confirm: plan.confirmToken! }));
      expect(changed).toMatchObject({ code: 'conflict', field: 'confirm' });
      const again = await t.run('memory.forgetSession', { sessionId: alpha });
      const other = await errorOf(t.run('memory.forgetSession', { sessionId: beta, confirm: again.confirmToken! }));
      expect(other).toMatchObject({ code: 'conflict', field: 'confirm' });
      const forged = await errorOf(t.run('memory.forgetSession', { sessionId: alpha, confirm: 'nonsense' }));
      expect(forged).toMatchObject({ code: 'invalid_input', field: 'confirm' });
      t.clock.advance(CONFIRM_TTL_MS + 1);
      const late = await errorOf(t.run('memory.forgetSession', { sessionId: alpha, confirm: again.confirmToken! }));
      expect(late).toMatchObject({
        code: 'invalid_input',
        field: 'confirm',
        message: expect.stringMatching(/expired/),
      });
      // Nothing of that went anywhere.
      expect((await t.run('sessions.get', { sessionId: alpha })).messageCount).toBe(1);
    });

    it('accepts the token in another process on the same home (a CLI dry run, confirmed over MCP)', async () => {
      const plan = await t.run('memory.forgetSession', { sessionId: beta });
      const other = openEngine({ home: t.home, clock: t.clock });
      try {
        const done = await dispatch(
          other,
          'memory.forgetSession',
          { sessionId: beta, confirm: plan.confirmToken! },
          OWNER,
        );
        expect(done).toMatchObject({ dryRun: false, sessionIds: [beta] });
      } finally {
        await other.close();
      }
    });

    it('names to an agent only the supporting sessions it may reach, and reaches only its own', async () => {
      const shared = (
        await t.run('facts.add', { sessionId: alpha, text: 'Prefers dark mode', kind: 'preference', scope: 'user' })
      ).fact;
      await t.run('facts.add', { sessionId: beta, text: 'Prefers dark mode', kind: 'preference', scope: 'user' });
      const a = agent({ projects: ['alpha'], workspaces: ['/srv/alpha'] });
      const plan = await dispatch(t.engine, 'memory.forgetSession', { sessionId: alpha }, a);
      expect(plan.kept).toEqual([expect.objectContaining({ id: shared.id, supportedBy: [], otherSupporters: 1 })]);
      expect(JSON.stringify(plan)).not.toContain(beta);
      const out = await errorOf(dispatch(t.engine, 'memory.forgetSession', { sessionId: beta }, a));
      expect(out).toMatchObject({ code: 'not_found', field: 'sessionId' });
    });
  });

  describe('memory.wiki.list and memory.wiki.read', () => {
    beforeEach(async () => {
      for (const [p, content] of [
        ['topics/alpha.md', page(['project:alpha'], 'Alpha')],
        ['topics/alpha-api.md', page(['project:alpha', 'workspace:/srv/alpha/api'], 'Alpha API')],
        ['topics/beta.md', page(['project:beta'], 'Beta')],
        ['topics/mixed.md', page(['project:alpha', 'project:beta'], 'Both')],
        ['topics/hand.md', '# Written by hand\n\nNo scopes.\n'],
      ]) {
        await t.run('wiki.write', { path: p, content });
      }
      await t.run('wiki.write', { path: 'sources/a1.md', content: page([`session:${alpha}`], 'A1 source') });
    });

    const paths = async (principal: Parameters<typeof dispatch>[3], sessionId?: string) =>
      (await dispatch(t.engine, 'memory.wiki.list', sessionId ? { sessionId } : {}, principal)).pages.map(
        (p) => p.path,
      );

    it('with a session: exactly the pages memory_search would return to it', async () => {
      const a = agent({ projects: ['alpha'], workspaces: ['/srv/alpha'] });
      expect(await paths(a, alpha)).toEqual(
        ['USER.md', 'topics/alpha.md', 'topics/hand.md', `sources/a1.md`].sort(byWiki),
      );
      // alpha2 (workspace /srv/alpha/api) sees the API page but not A1's source page.
      expect(await paths(a, alpha2)).toEqual(
        ['USER.md', 'topics/alpha-api.md', 'topics/alpha.md', 'topics/hand.md'].sort(byWiki),
      );
    });

    it("without one: every page whose scopes all lie in the connection's context", async () => {
      const a = agent({ projects: ['alpha'], workspaces: ['/srv/alpha'] });
      expect(await paths(a)).toEqual(
        ['USER.md', 'topics/alpha-api.md', 'topics/alpha.md', 'topics/hand.md', 'sources/a1.md'].sort(byWiki),
      );
      const b = agent({ projects: ['beta'] });
      expect(await paths(b)).toEqual(['USER.md', 'topics/beta.md', 'topics/hand.md'].sort(byWiki));
      expect(await paths(OWNER)).toEqual(expect.arrayContaining(['topics/mixed.md', 'topics/beta.md']));
      const read = await dispatch(t.engine, 'memory.wiki.read', { path: 'topics/alpha-api.md' }, a);
      expect(read).toMatchObject({ title: 'Alpha API', meta: { description: 'Alpha API' } });
      for (const hidden of ['topics/beta.md', 'topics/mixed.md', 'LOG.md', 'INDEX.md', 'topics/none.md']) {
        const e = await errorOf(dispatch(t.engine, 'memory.wiki.read', { path: hidden }, a));
        expect(e, hidden).toMatchObject({
          code: 'not_found',
          field: 'path',
          message: expect.stringContaining('wiki page not found'),
        });
      }
      const bad = await errorOf(dispatch(t.engine, 'memory.wiki.read', { path: '../memory.db' }, a));
      expect(bad).toMatchObject({ code: 'invalid_input', field: 'path' });
    });
  });

  describe('memory.activity', () => {
    it('lists the recently active sessions of the context and its recent facts, newest first', async () => {
      await t.run('messages.add', { sessionId: alpha, role: 'user', content: 'first   words\nof alpha' });
      t.clock.advance(1000);
      await t.run('messages.add', { sessionId: alpha2, role: 'assistant', content: 'alpha two answered' });
      await t.run('facts.add', { sessionId: alpha2, text: 'Alpha API uses REST', scope: 'project' });
      await t.run('facts.add', { sessionId: beta, text: 'Beta uses gRPC', scope: 'project' });
      const seen = await t.run('memory.activity', { sessionId: alpha });
      expect(seen.sessions.map((s) => s.id)).toEqual([alpha2, alpha]);
      expect(seen.sessions[1]).toMatchObject({
        messageCount: 1,
        lastMessage: { role: 'user', preview: 'first words of alpha' },
      });
      expect(seen.facts.map((f) => f.text)).toEqual(['Alpha API uses REST']);
      const owner = await t.run('memory.activity', { limit: 2 });
      expect(owner.sessions).toHaveLength(2);
    });

    it('shows an agent only what it reaches: its context, or its own sessions', async () => {
      const outside = agent({ projects: ['alpha'] }); // no workspace declared: alpha's sessions lie outside
      expect((await dispatch(t.engine, 'memory.activity', {}, outside)).sessions).toEqual([]);
      const a = agent({ projects: ['alpha'], workspaces: ['/srv/alpha'] });
      const mine = await dispatch(t.engine, 'sessions.create', { title: 'mine' }, a);
      const all = await dispatch(t.engine, 'memory.activity', {}, a);
      expect(all.sessions.map((s) => s.id).sort()).toEqual([alpha, alpha2, mine.id].sort());
      const scratch = agent({});
      const own = await dispatch(t.engine, 'sessions.create', { title: 'scratch' }, scratch);
      expect((await dispatch(t.engine, 'memory.activity', {}, scratch)).sessions.map((s) => s.id)).toEqual([own.id]);
    });
  });
});

/** The order memory.wiki.list uses: USER.md, then the section folders in layout order. */
const ORDER = ['USER.md', 'topics/', 'entities/', 'sources/', 'comparisons/', 'imports/', 'notes/'];
function byWiki(a: string, b: string): number {
  const rank = (p: string) => ORDER.findIndex((o) => p === o || p.startsWith(o));
  return rank(a) - rank(b) || a.localeCompare(b);
}
