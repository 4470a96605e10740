import { normalizeToken } from '../../src/main/text/tokenize';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources, type TestEngine } from '../helpers/home';
import { expectExactScopeCounts } from '../helpers/scope-counts';
import { CommandError } from '../../src/shared/errors';
import { pendingPurges, purgeStep } from '../../src/main/store/recall-index';

/**
 * People correcting memory: edits (text, kind, scope, confidence) with history and re-indexing,
 * merges on collision, facts added by hand for a context, pins and pauses as recall sees them,
 * scope pickers and real totals. Real engine on a real SQLite file.
 */
const res = testResources();
afterEach(() => res.release());

const session = (t: TestEngine, input: Record<string, unknown> = {}) => t.run('sessions.create', input as never);
const add = (t: TestEngine, sessionId: string, text: string, extra: Record<string, unknown> = {}) =>
  t.run('facts.add', { sessionId, text, scope: 'project', kind: 'decision', ...extra } as never);

const expectExactCounts = (t: TestEngine) => expectExactScopeCounts(t.engine.db);

/** The fact index's row ids for a word in any scope (what recall and the fact filter read). */
const indexed = (t: TestEngine, word: string) =>
  (
    t.engine.db
      .prepare('SELECT rowid FROM memory_facts_fts WHERE memory_facts_fts MATCH ?')
      .all(`"${normalizeToken(word)}_"*`) as {
      rowid: number;
    }[]
  ).map((r) => r.rowid);
const seqOf = (t: TestEngine, id: string) =>
  (t.engine.db.prepare('SELECT seq FROM memory_facts WHERE id = ?').get(id) as { seq: number }).seq;

async function rejects(p: Promise<unknown>): Promise<CommandError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof CommandError) return e;
    throw e;
  }
  throw new Error('expected the command to fail');
}

describe('facts.update', () => {
  it('edits text, kind and confidence, keeps the previous values in the history and re-indexes the fact', async () => {
    const t = res.engine();
    const s = await session(t, { projectId: 'billing' });
    const { fact } = await add(t, s.id, 'Backups run nightly with pgBackRest');
    t.clock.advance(60_000);
    const r = await t.run('facts.update', {
      factId: fact.id,
      text: '  Backups run   hourly with WAL archiving ',
      kind: 'constraint',
      confidence: 'high',
      actor: 'window',
    });
    expect(r).toMatchObject({ changed: true, mergedInto: null });
    expect(r.fact).toMatchObject({
      text: 'Backups run hourly with WAL archiving',
      kind: 'constraint',
      confidence: 'high',
    });
    expect(r.fact.updatedAt).toBe(t.clock.now());
    const history = await t.run('facts.history', { factId: fact.id });
    expect(history.entries).toEqual([
      {
        at: t.clock.now(),
        actor: 'window',
        change: 'edit',
        previous: {
          text: 'Backups run nightly with pgBackRest',
          kind: 'decision',
          scope: 'project',
          scopeKey: 'billing',
          confidence: 'medium',
          recall: 'normal',
        },
        note: null,
      },
    ]);
    // The index holds the new words only: the old ones find nothing, the new ones find it.
    const seq = seqOf(t, fact.id);
    expect(indexed(t, 'nightly')).toEqual([]);
    expect(indexed(t, 'archiving')).toEqual([seq]);
    expect((await t.run('facts.list', { text: 'pgBackRest' })).facts).toEqual([]);
    expect((await t.run('facts.list', { text: 'hourly' })).facts.map((f) => f.id)).toEqual([fact.id]);
    const recalled = await t.run('memory.recall', {
      sessionId: s.id,
      text: 'how often do backups with WAL archiving run',
    });
    expect(recalled.facts.map((f) => f.id)).toEqual([fact.id]);
    expectExactCounts(t);
  });

  it('changes nothing and records nothing when the values are the same', async () => {
    const t = res.engine();
    const s = await session(t, { projectId: 'billing' });
    const { fact } = await add(t, s.id, 'Invoices are emailed as PDF');
    const r = await t.run('facts.update', { factId: fact.id, text: 'Invoices are emailed as PDF', kind: 'decision' });
    expect(r.changed).toBe(false);
    expect((await t.run('facts.history', { factId: fact.id })).entries).toEqual([]);
  });

  it('moves a fact to another scope its supporting sessions all see, keeping counts and the scope tag exact', async () => {
    const t = res.engine();
    const s = await session(t, { projectId: 'billing', folderId: 'work' });
    const other = await session(t, { projectId: 'billing' });
    const stranger = await session(t, { projectId: 'web' });
    const { fact } = await add(t, s.id, 'Deploy from the release branch only');
    const detail = await t.run('facts.get', { factId: fact.id });
    expect(detail.scopeChoices).toEqual([
      { scope: 'session', key: s.id },
      { scope: 'folder', key: 'work' },
      { scope: 'project', key: 'billing' },
    ]);
    const moved = await t.run('facts.update', { factId: fact.id, scope: 'session' });
    expect(moved.fact).toMatchObject({ scope: 'session', scopeKey: s.id });
    expectExactCounts(t);
    // The project's scope row went with its last fact; recall follows the new scope.
    expect(t.engine.db.prepare("SELECT 1 FROM memory_scopes WHERE scope = 'project'").get()).toBeUndefined();
    expect((await t.run('memory.recall', { sessionId: s.id, text: 'deploy release branch' })).facts).toHaveLength(1);
    expect((await t.run('memory.recall', { sessionId: other.id, text: 'deploy release branch' })).facts).toEqual([]);
    expect((await t.run('memory.recall', { sessionId: stranger.id, text: 'deploy release branch' })).facts).toEqual([]);
    // A scope the supporting session cannot see is refused, naming the field.
    const e = await rejects(t.run('facts.update', { factId: fact.id, scope: 'project', scopeKey: 'web' }));
    expect(e).toMatchObject({ code: 'invalid_input', field: 'scope' });
  });

  it('offers only the scopes every supporter sees, and user scope only to preferences and profile', async () => {
    const t = res.engine();
    const a = await session(t, { projectId: 'billing' });
    const b = await session(t, { projectId: 'billing' });
    const { fact } = await add(t, a.id, 'Billing uses Postgres 16');
    await add(t, b.id, 'Billing uses Postgres 16');
    expect((await t.run('facts.get', { factId: fact.id })).scopeChoices).toEqual([
      { scope: 'project', key: 'billing' },
    ]);
    const e = await rejects(t.run('facts.update', { factId: fact.id, scope: 'user' }));
    expect(e.message).toContain('user scope is only for preferences and profile');
    const pref = await add(t, a.id, 'Prefers concise answers', { kind: 'preference' });
    const choices = (await t.run('facts.get', { factId: pref.fact.id })).scopeChoices;
    expect(choices).toContainEqual({ scope: 'user', key: '' });
    const toUser = await t.run('facts.update', { factId: pref.fact.id, scope: 'user' });
    expect(toUser.fact).toMatchObject({ scope: 'user', scopeKey: '' });
    // A user-scope fact cannot become a technical kind without moving.
    const kind = await rejects(t.run('facts.update', { factId: pref.fact.id, kind: 'decision' }));
    expect(kind).toMatchObject({ code: 'invalid_input', field: 'kind' });
    expectExactCounts(t);
  });

  it('refuses an edit that equals another fact in the scope, naming it; merge joins their evidence and history', async () => {
    const t = res.engine();
    const a = await session(t, { projectId: 'billing' });
    const b = await session(t, { projectId: 'billing' });
    const c = await session(t, { projectId: 'billing' });
    const keep = (await add(t, a.id, 'Billing uses Postgres 16')).fact;
    await add(t, b.id, 'Billing uses Postgres 16');
    const dup = (await add(t, b.id, 'Billing runs on PG', { confidence: 'high' })).fact;
    await add(t, c.id, 'Billing runs on PG');
    await t.run('facts.update', { factId: dup.id, kind: 'fact', actor: 'first' });
    const refused = await rejects(t.run('facts.update', { factId: dup.id, text: 'billing uses postgres 16.' }));
    expect(refused).toMatchObject({ code: 'conflict', field: 'text' });
    expect(refused.message).toContain(keep.id);
    expect((await t.run('facts.get', { factId: dup.id })).text).toBe('Billing runs on PG');

    const merged = await t.run('facts.update', {
      factId: dup.id,
      text: 'billing uses postgres 16.',
      merge: true,
      actor: 'window',
    });
    expect(merged.mergedInto).toBe(keep.id);
    // Sessions a, b and c each support it once: b's two rows became one.
    expect(merged.fact).toMatchObject({
      id: keep.id,
      text: 'Billing uses Postgres 16',
      reinforcement: 3,
      confidence: 'high',
    });
    expect((await t.run('facts.get', { factId: keep.id })).evidence.map((e) => e.sessionId).sort()).toEqual(
      [a.id, b.id, c.id].sort(),
    );
    await expect(t.run('facts.get', { factId: dup.id })).rejects.toMatchObject({ code: 'not_found' });
    const history = (await t.run('facts.history', { factId: keep.id })).entries;
    expect(history.map((h) => [h.change, h.actor])).toEqual([
      ['merge', 'window'],
      ['edit', 'first'],
    ]);
    expect(history[0]!.previous.text).toBe('Billing runs on PG');
    // The merged-away fact's index row is queued for purge, like any deleted fact.
    expect(pendingPurges(t.engine.db)).toBe(1);
    while (purgeStep(t.engine.db));
    expect(indexed(t, 'pg')).toEqual([]);
    expectExactCounts(t);
    // Forgetting one session now lowers the one fact, it does not delete it.
    await t.run('sessions.delete', { sessionId: c.id });
    expect((await t.run('facts.get', { factId: keep.id })).reinforcement).toBe(2);
  });

  it('refuses secrets and invalid input before changing anything', async () => {
    const t = res.engine();
    const s = await session(t, { projectId: 'billing' });
    const { fact } = await add(t, s.id, 'The API is behind the gateway');
    await expect(
      t.run('facts.update', { factId: fact.id, text: 'token: ghp_abcdefghijklmnopqrstuvwxyz0123456789' }),
    ).rejects.toMatchObject({ field: 'text' });
    await expect(t.run('facts.update', { factId: fact.id, text: '   ' })).rejects.toMatchObject({ field: 'text' });
    await expect(t.run('facts.update', { factId: 'nope', text: 'x y z' })).rejects.toMatchObject({ code: 'not_found' });
    expect((await t.run('facts.get', { factId: fact.id })).text).toBe('The API is behind the gateway');
    expect((await t.run('facts.history', { factId: fact.id })).entries).toEqual([]);
  });

  it('forgetting a fact forgets its history (earlier wording included)', async () => {
    const t = res.engine();
    const s = await session(t, { projectId: 'billing' });
    const { fact } = await add(t, s.id, 'The staging password rotates weekly');
    await t.run('facts.update', { factId: fact.id, text: 'Staging credentials rotate weekly' });
    await t.run('facts.delete', { factId: fact.id });
    expect(t.engine.db.prepare('SELECT count(*) AS n FROM memory_fact_history').get()).toEqual({ n: 0 });
  });
});

describe('facts.create (a fact added by hand for a context)', () => {
  it('adds to an existing project with no supporting session, dedupes, and records who added it', async () => {
    const t = res.engine();
    await session(t, { projectId: 'infra' });
    const r = await t.run('facts.create', {
      scope: 'project',
      scopeKey: 'infra',
      kind: 'constraint',
      text: 'Staging runs in eu-west-1',
      actor: 'window',
    });
    expect(r.created).toBe(true);
    expect(r.fact).toMatchObject({
      scope: 'project',
      scopeKey: 'infra',
      reinforcement: 0,
      origin: 'manual',
      confidence: 'high',
    });
    expect((await t.run('facts.get', { factId: r.fact.id })).evidence).toEqual([]);
    expect((await t.run('facts.history', { factId: r.fact.id })).entries.map((h) => [h.change, h.actor])).toEqual([
      ['create', 'window'],
    ]);
    const again = await t.run('facts.create', {
      scope: 'project',
      scopeKey: 'infra',
      text: 'staging runs in EU-west-1.',
    });
    expect(again).toMatchObject({ created: false, fact: { id: r.fact.id } });
    expectExactCounts(t);
  });

  it('uses the session as evidence for session scope, and refuses unknown contexts and misplaced kinds', async () => {
    const t = res.engine();
    const lead = await session(t, { projectId: 'web' });
    const member = await session(t, { kind: 'team-member', parentSessionId: lead.id });
    const r = await t.run('facts.create', { scope: 'session', scopeKey: member.id, text: 'Ship the beta on Friday' });
    // A team member's context is its lead's session scope; the member is the evidence.
    expect(r.fact).toMatchObject({ scope: 'session', scopeKey: lead.id, reinforcement: 1 });
    expect((await t.run('facts.get', { factId: r.fact.id })).evidence.map((e) => e.sessionId)).toEqual([member.id]);
    await expect(t.run('facts.create', { scope: 'project', scopeKey: 'nope', text: 'x y z' })).rejects.toMatchObject({
      field: 'scopeKey',
    });
    await expect(t.run('facts.create', { scope: 'user', kind: 'decision', text: 'Use Rust' })).rejects.toMatchObject({
      field: 'scope',
    });
    const pref = await t.run('facts.create', { scope: 'user', kind: 'preference', text: 'Prefers metric units' });
    expect(pref.fact).toMatchObject({ scope: 'user', scopeKey: '' });
    await expect(t.run('facts.create', { scope: 'session', scopeKey: 'missing', text: 'x y z' })).rejects.toMatchObject(
      {
        code: 'not_found',
      },
    );
  });
});

describe('pin and pause', () => {
  it('a paused fact is kept and listed but never recalled or searched; resuming brings it back', async () => {
    const t = res.engine();
    const s = await session(t, { projectId: 'web' });
    const { fact } = await add(t, s.id, 'The web app is built with Vite', { kind: 'convention' });
    const ask = () => t.run('memory.recall', { sessionId: s.id, text: 'which tool builds the web app' });
    expect((await ask()).facts.map((f) => f.id)).toEqual([fact.id]);
    const paused = await t.run('facts.pause', { factId: fact.id, actor: 'window' });
    expect(paused).toMatchObject({ changed: true, fact: { recall: 'paused' } });
    expect((await ask()).facts).toEqual([]);
    const search = await t.run('memory.search', { sessionId: s.id, query: 'web app vite', sources: ['facts'] });
    expect(search.results).toEqual([]);
    expect((await t.run('facts.list', { recall: 'paused' })).facts.map((f) => f.id)).toEqual([fact.id]);
    expect((await t.run('facts.count', { recall: 'paused' })).total).toBe(1);
    expect((await t.run('facts.pause', { factId: fact.id })).changed).toBe(false);
    await t.run('facts.pause', { factId: fact.id, paused: false });
    expect((await ask()).facts.map((f) => f.id)).toEqual([fact.id]);
    expect((await t.run('facts.history', { factId: fact.id })).entries.map((h) => h.change)).toEqual([
      'resume',
      'pause',
    ]);
  });

  it('a pinned fact is always a candidate: found even when the candidate caps would crowd it out', async () => {
    const t = res.engine();
    const s = await session(t, { projectId: 'big' });
    const { fact } = await add(t, s.id, 'Cache keys expire hourly', { confidence: 'high' });
    // 250 newer facts holding both query words fill every per-term cap and the deep read.
    for (let i = 0; i < 250; i++)
      await add(t, s.id, `Cache keys for tenant ${i} expire after the hourly sweep run ${i}`);
    const ask = () => t.run('memory.recall', { sessionId: s.id, text: 'cache keys expire hourly' });
    expect((await ask()).facts.map((f) => f.id)).not.toContain(fact.id);
    await t.run('facts.pin', { factId: fact.id });
    expect((await ask()).facts[0]!.id).toBe(fact.id);
    // Pinning a paused fact resumes it; unpinning leaves it normal.
    await t.run('facts.pause', { factId: fact.id });
    expect((await ask()).facts.map((f) => f.id)).not.toContain(fact.id);
    expect((await t.run('facts.pin', { factId: fact.id })).fact.recall).toBe('pinned');
    expect((await t.run('facts.pin', { factId: fact.id, pinned: false })).fact.recall).toBe('normal');
  });
});

describe('scope pickers and totals', () => {
  it('lists existing projects, workspaces, folders and sessions with fact counts; filters by text', async () => {
    const t = res.engine();
    const a = await session(t, { projectId: 'billing', workspace: '/tmp/ws-billing', title: 'Database choice' });
    await session(t, { projectId: 'billing', folderId: 'work' });
    const web = await session(t, { projectId: 'web', title: 'Web app setup' });
    await add(t, a.id, 'Billing uses Postgres 16');
    await add(t, a.id, 'Invoices are emailed as PDF');
    await add(t, a.id, 'Keep the schema in one file', { scope: 'session' });
    await add(t, web.id, 'Prefers concise answers', { scope: 'user', kind: 'preference' });
    const all = await t.run('scopes.list', {});
    const find = (scope: string, key: string) => all.contexts.find((c) => c.scope === scope && c.key === key);
    expect(find('user', '')).toMatchObject({ facts: 1, sessions: 3 });
    expect(find('project', 'billing')).toMatchObject({ facts: 2, sessions: 2 });
    expect(find('project', 'web')).toMatchObject({ facts: 0, sessions: 1 });
    expect(find('workspace', '/tmp/ws-billing')).toMatchObject({ facts: 0, sessions: 1 });
    expect(find('folder', 'work')).toMatchObject({ sessions: 1 });
    expect(find('session', a.id)).toMatchObject({ label: 'Database choice', facts: 1 });
    expect(all.totals).toMatchObject({ user: 1, project: 2, workspace: 1, folder: 1, session: 3 });
    const filtered = await t.run('scopes.list', { scope: 'session', query: 'web' });
    expect(filtered.contexts.map((c) => c.label)).toEqual(['Web app setup']);
    expect(filtered.totals).toEqual({ session: 1 });
  });

  it('counts every fact a filter matches, not a page', async () => {
    const t = res.engine();
    const s = await session(t, { projectId: 'bulk' });
    for (let i = 0; i < 230; i++) await add(t, s.id, `Bulk fact number ${i}`, { kind: i % 2 ? 'fact' : 'decision' });
    expect((await t.run('facts.list', { scope: 'project', scopeKey: 'bulk', limit: 50 })).facts).toHaveLength(50);
    expect((await t.run('facts.count', { scope: 'project', scopeKey: 'bulk' })).total).toBe(230);
    expect((await t.run('facts.count', { scope: 'project' })).total).toBe(230);
    expect((await t.run('facts.count', { kind: 'fact' })).total).toBe(115);
    expect((await t.run('facts.count', { text: 'number' })).total).toBe(230);
    expect((await t.run('facts.count', { sessionId: s.id })).total).toBe(230);
    expect((await t.run('facts.count', {})).total).toBe(230);
  });

  it('matches any word (inflections too, the last as a prefix) and ranks by relevance', async () => {
    const t = res.engine();
    const s = await session(t, { projectId: 'billing' });
    for (const text of [
      'Billing uses Postgres 16',
      'Postgres backups run nightly',
      'Invoices are emailed as PDF',
      'Postgres stores the invoices',
      'Databases are backed up weekly',
    ])
      await add(t, s.id, text);
    const list = (text: string, sort?: string) =>
      t.run('facts.list', { text, ...(sort ? { sort } : {}) } as never).then((r) => r.facts.map((f) => f.text));
    const ranked = await list('postgres invoices', 'relevance');
    expect(ranked[0]).toBe('Postgres stores the invoices');
    expect(ranked.sort()).toEqual(
      [
        'Billing uses Postgres 16',
        'Invoices are emailed as PDF',
        'Postgres backups run nightly',
        'Postgres stores the invoices',
      ].sort(),
    );
    expect(await list('database')).toEqual(['Databases are backed up weekly']);
    expect(await list('invoice')).toHaveLength(2);
    expect(await list('postg')).toHaveLength(3);
    await expect(t.run('facts.list', { sort: 'relevance' })).rejects.toMatchObject({ field: 'sort' });
    // Relevance pages walk on with a cursor like every other order.
    const first = await t.run('facts.list', { text: 'postgres invoices', sort: 'relevance', limit: 2 });
    const second = await t.run('facts.list', {
      text: 'postgres invoices',
      sort: 'relevance',
      limit: 2,
      cursor: first.nextCursor!,
    });
    expect([...first.facts, ...second.facts].map((f) => f.text).sort()).toEqual(ranked.sort());
    expect(second.nextCursor).toBeNull();
  });
});
