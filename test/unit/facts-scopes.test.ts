import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { listFacts } from '../../src/main/store/fact-queries';
import { resolveScopes, visibleScopeFilter } from '../../src/main/memory/scope';
import type { FactRecord } from '../../src/shared/schemas';
import { factKeyOfFolded, foldForKey } from '../../src/main/text/fact-text';

/** Facts a session may see, straight from the scope filter every reader uses. */
function visibleTo(t: TestEngine, sessionId: string): FactRecord[] {
  const { visible } = resolveScopes(t.engine.db, sessionId);
  const filter = visibleScopeFilter(visible);
  const ids = (
    t.engine.db.prepare(`SELECT id FROM memory_facts f WHERE ${filter.sql}`).all(...filter.params) as { id: string }[]
  ).map((r) => r.id);
  return listFacts(t.engine.db, { sort: 'recency', limit: 500 }).facts.filter((f) => ids.includes(f.id));
}

describe('facts, dedup and reinforcement', () => {
  let t: TestEngine;
  beforeEach(() => (t = openTestEngine()));
  afterEach(() => t.close());

  it('dedups per scope by folded case, whitespace and punctuation', async () => {
    const s = await t.run('sessions.create', { projectId: 'p1' });
    const a = await t.run('facts.add', {
      sessionId: s.id,
      scope: 'project',
      kind: 'convention',
      text: 'Use pnpm, not npm.',
    });
    const b = await t.run('facts.add', {
      sessionId: s.id,
      scope: 'project',
      kind: 'convention',
      text: '  use   PNPM not npm ',
    });
    expect(a.created).toBe(true);
    expect(b.created).toBe(false);
    expect(b.fact.id).toBe(a.fact.id);
    expect(b.fact.text).toBe('Use pnpm, not npm.');
    const other = await t.run('facts.add', {
      sessionId: s.id,
      scope: 'session',
      kind: 'convention',
      text: 'Use pnpm, not npm.',
    });
    expect(other.fact.id).not.toBe(a.fact.id);
    const different = await t.run('facts.add', {
      sessionId: s.id,
      scope: 'project',
      kind: 'convention',
      text: 'Use pnpm 9, not npm.',
    });
    expect(different.created).toBe(true);
  });

  it('never merges two texts whose lookup keys collide', async () => {
    const s = await t.run('sessions.create', { projectId: 'p1' });
    const blue = await t.run('facts.add', {
      sessionId: s.id,
      scope: 'project',
      text: 'Deploys run on the blue cluster',
    });
    // Give a second row in the scope the 31-bit key that "green" hashes to, as a collision would.
    const greenKey = factKeyOfFolded(foldForKey('Deploys run on the green cluster'));
    t.engine.db
      .prepare(
        `INSERT INTO memory_fact_rows (id, scope_id, kind, text, normalized_key, reinforcement, first_seen_at, last_seen_at, updated_at)
         SELECT 'collides', scope_id, kind, 'Deploys run on the red cluster', ?, 1, 1, 1, 1
         FROM memory_fact_rows WHERE id = ?`,
      )
      .run(greenKey, blue.fact.id);
    const green = await t.run('facts.add', {
      sessionId: s.id,
      scope: 'project',
      text: 'Deploys run on the green cluster',
    });
    expect(green.created).toBe(true);
    expect(green.fact.text).toBe('Deploys run on the green cluster');
    const greenAgain = await t.run('facts.add', {
      sessionId: s.id,
      scope: 'project',
      text: 'deploys run on the GREEN cluster.',
    });
    expect(greenAgain.fact.id).toBe(green.fact.id);
    const collides = t.engine.db.prepare("SELECT text, reinforcement FROM memory_facts WHERE id = 'collides'").get();
    expect(collides).toEqual({ text: 'Deploys run on the red cluster', reinforcement: 1 });
  });

  it('reinforces on independent sessions only; the same evidence twice changes nothing', async () => {
    const s1 = await t.run('sessions.create', { projectId: 'p1' });
    const s2 = await t.run('sessions.create', { projectId: 'p1' });
    const m1 = await t.run('messages.add', { sessionId: s1.id, role: 'user', content: 'we use tabs' });
    const m1b = await t.run('messages.add', { sessionId: s1.id, role: 'user', content: 'tabs again' });
    const first = await t.run('facts.add', {
      sessionId: s1.id,
      messageId: m1.id,
      scope: 'project',
      kind: 'convention',
      text: 'Indent with tabs',
    });
    expect(first.fact.reinforcement).toBe(1);
    t.clock.advance(1000);
    const same = await t.run('facts.add', {
      sessionId: s1.id,
      messageId: m1.id,
      scope: 'project',
      kind: 'convention',
      text: 'Indent with tabs',
    });
    expect(same).toMatchObject({ created: false, reinforced: false, unchanged: true });
    expect(same.fact).toEqual(first.fact);
    const laterMessage = await t.run('facts.add', {
      sessionId: s1.id,
      messageId: m1b.id,
      scope: 'project',
      kind: 'convention',
      text: 'indent with TABS',
    });
    expect(laterMessage.reinforced).toBe(false);
    expect(laterMessage.fact.reinforcement).toBe(1);
    const second = await t.run('facts.add', {
      sessionId: s2.id,
      scope: 'project',
      kind: 'convention',
      text: 'Indent with tabs',
      confidence: 'high',
    });
    expect(second).toMatchObject({ created: false, reinforced: true });
    expect(second.fact.reinforcement).toBe(2);
    expect(second.fact.confidence).toBe('high');
    const lower = await t.run('facts.add', {
      sessionId: s2.id,
      scope: 'project',
      kind: 'convention',
      text: 'Indent with tabs',
      confidence: 'low',
    });
    expect(lower.fact.confidence).toBe('high');

    const detail = await t.run('facts.get', { factId: first.fact.id });
    expect(detail.evidence.map((e) => e.sessionId).sort()).toEqual([s1.id, s2.id].sort());
    // The establishing message is kept when a later observation names another one.
    expect(detail.evidence.find((e) => e.sessionId === s1.id)?.messageId).toBe(m1.id);
    expect(detail.evidence.find((e) => e.sessionId === s2.id)?.messageId).toBeNull();
  });

  it('rejects bad input with the field named and writes nothing', async () => {
    const s = await t.run('sessions.create', { projectId: 'p1' });
    await expect(t.run('facts.add', { sessionId: s.id, text: '   ' })).rejects.toThrow(/^text: must not be empty/);
    await expect(t.run('facts.add', { sessionId: s.id, text: 'x'.repeat(501) })).rejects.toThrow(
      /text: must be at most 500/,
    );
    await expect(t.run('facts.add', { sessionId: s.id, text: 'ok', scope: 'galaxy' as never })).rejects.toThrow(
      /^scope: /,
    );
    await expect(t.run('facts.add', { sessionId: 'nope', text: 'ok' })).rejects.toThrow(/session not found: nope/);
    await expect(t.run('facts.add', { sessionId: s.id, text: 'The deploy password = hunter2hunter2' })).rejects.toThrow(
      /^text: looks like a secret \(/,
    );
    await expect(
      t.run('facts.add', { sessionId: s.id, text: 'Key is sk-proj-abcdefghijklmnopqrstuvwx1234567890' }),
    ).rejects.toThrow(/^text: looks like a secret/);
    await expect(t.run('facts.add', { sessionId: s.id, text: 'ok', bogus: 1 } as never)).rejects.toThrow(
      /bogus: is not a known field/,
    );
    const other = await t.run('sessions.create', {});
    const m = await t.run('messages.add', { sessionId: other.id, role: 'user', content: 'hi' });
    await expect(t.run('facts.add', { sessionId: s.id, messageId: m.id, text: 'ok' })).rejects.toThrow(
      /messageId: belongs to another session/,
    );
    expect(t.engine.db.prepare('SELECT count(*) AS n FROM memory_facts').get()).toEqual({ n: 0 });
  });
});

describe('scope visibility and coercion', () => {
  let t: TestEngine;
  beforeEach(() => (t = openTestEngine()));
  afterEach(() => t.close());

  it('a project fact never reaches another project; user facts reach everyone', async () => {
    const a = await t.run('sessions.create', { projectId: 'alpha' });
    const b = await t.run('sessions.create', { projectId: 'beta' });
    await t.run('facts.add', { sessionId: a.id, scope: 'project', kind: 'decision', text: 'Alpha ships on Fridays' });
    await t.run('facts.add', { sessionId: a.id, scope: 'user', kind: 'preference', text: 'Prefers short answers' });
    expect(visibleTo(t, b.id).map((f) => f.text)).toEqual(['Prefers short answers']);
    expect(
      visibleTo(t, a.id)
        .map((f) => f.text)
        .sort(),
    ).toEqual(['Alpha ships on Fridays', 'Prefers short answers']);
  });

  it('workspace and folder facts follow the normalized key', async () => {
    const a = await t.run('sessions.create', { workspace: '/srv/app/', folderId: 'f1' });
    const b = await t.run('sessions.create', { workspace: '/srv/app/sub/..' });
    const c = await t.run('sessions.create', { workspace: '/srv/other', folderId: 'f1' });
    await t.run('facts.add', { sessionId: a.id, scope: 'workspace', kind: 'constraint', text: 'Never touch vendor/' });
    await t.run('facts.add', { sessionId: a.id, scope: 'folder', kind: 'fact', text: 'Folder f1 is for invoices' });
    expect(visibleTo(t, b.id).map((f) => f.text)).toEqual(['Never touch vendor/']);
    expect(visibleTo(t, c.id).map((f) => f.text)).toEqual(['Folder f1 is for invoices']);
  });

  it('a session fact reaches its team context only', async () => {
    const lead = await t.run('sessions.create', { projectId: 'p' });
    const member = await t.run('sessions.create', { kind: 'team-member', parentSessionId: lead.id });
    const sideChat = await t.run('sessions.create', { kind: 'side-chat', parentSessionId: lead.id });
    const stranger = await t.run('sessions.create', { projectId: 'p' });
    await t.run('facts.add', { sessionId: lead.id, scope: 'session', kind: 'fact', text: 'Lead session detail' });
    const fromMember = await t.run('facts.add', {
      sessionId: member.id,
      scope: 'session',
      kind: 'fact',
      text: 'Member found this',
    });
    expect(fromMember.fact.scopeKey).toBe(lead.id);
    for (const s of [lead, member, sideChat]) {
      expect(
        visibleTo(t, s.id)
          .map((f) => f.text)
          .sort(),
      ).toEqual(['Lead session detail', 'Member found this']);
    }
    expect(visibleTo(t, stranger.id)).toEqual([]);
    // Team members see their lead's project facts through the lead.
    await t.run('facts.add', { sessionId: stranger.id, scope: 'project', kind: 'fact', text: 'Project p uses Go' });
    expect(visibleTo(t, member.id).map((f) => f.text)).toContain('Project p uses Go');
  });

  it('children share the parent context and cannot claim another', async () => {
    const lead = await t.run('sessions.create', { projectId: 'p', workspace: '/w', folderId: 'f' });
    const member = await t.run('sessions.create', { kind: 'team-member', parentSessionId: lead.id });
    expect(member).toMatchObject({ projectId: 'p', workspace: '/w', folderId: 'f', parentSessionId: lead.id });
    await expect(
      t.run('sessions.create', { kind: 'team-member', parentSessionId: lead.id, projectId: 'other' }),
    ).rejects.toThrow(/projectId: a team-member session shares its parent's projectId/);
    await expect(t.run('sessions.create', { kind: 'side-chat' })).rejects.toThrow(/parentSessionId/);
    await expect(t.run('sessions.create', { parentSessionId: lead.id })).rejects.toThrow(
      /top-level session has no parent/,
    );
    await expect(t.run('sessions.create', { workspace: 'relative/path' })).rejects.toThrow(
      /workspace: must be an absolute path/,
    );
  });

  it('coerces technical kinds away from user scope and unavailable scopes to the first available', async () => {
    const full = await t.run('sessions.create', { projectId: 'p', workspace: '/w', folderId: 'f' });
    const bare = await t.run('sessions.create', {});
    const folderOnly = await t.run('sessions.create', { folderId: 'f2' });
    const decision = await t.run('facts.add', {
      sessionId: full.id,
      scope: 'user',
      kind: 'decision',
      text: 'Use Postgres',
    });
    expect(decision.fact).toMatchObject({
      scope: 'project',
      scopeKey: 'p',
      requestedScope: 'user',
      coercionReason: 'technical-kind-not-user',
    });
    const pref = await t.run('facts.add', {
      sessionId: full.id,
      scope: 'user',
      kind: 'preference',
      text: 'Likes dark mode',
    });
    expect(pref.fact).toMatchObject({ scope: 'user', scopeKey: '', requestedScope: null, coercionReason: null });
    for (const kind of ['convention', 'constraint', 'fact'] as const) {
      const r = await t.run('facts.add', { sessionId: bare.id, scope: 'user', kind, text: `bare ${kind}` });
      expect(r.fact).toMatchObject({ scope: 'session', scopeKey: bare.id, requestedScope: 'user' });
    }
    const missing = await t.run('facts.add', {
      sessionId: folderOnly.id,
      scope: 'project',
      kind: 'fact',
      text: 'no project here',
    });
    expect(missing.fact).toMatchObject({
      scope: 'folder',
      scopeKey: 'f2',
      requestedScope: 'project',
      coercionReason: 'scope-unavailable',
    });
    const ws = await t.run('facts.add', { sessionId: full.id, scope: 'workspace', kind: 'fact', text: 'ws fact' });
    expect(ws.fact).toMatchObject({ scope: 'workspace', scopeKey: '/w', requestedScope: null });
  });

  it('resolves scopes most specific first', async () => {
    const lead = await t.run('sessions.create', { projectId: 'p', workspace: '/w', folderId: 'f' });
    const member = await t.run('sessions.create', { kind: 'team-member', parentSessionId: lead.id });
    const r = await t.run('scopes.resolve', { sessionId: member.id });
    expect(r.ownerSessionId).toBe(lead.id);
    expect(r.visible).toEqual([
      { scope: 'session', key: member.id },
      { scope: 'session', key: lead.id },
      { scope: 'folder', key: 'f' },
      { scope: 'workspace', key: '/w' },
      { scope: 'project', key: 'p' },
      { scope: 'user', key: '' },
    ]);
  });
});

describe('facts.list text filter', () => {
  let t: TestEngine;
  beforeEach(() => (t = openTestEngine()));
  afterEach(() => t.close());

  it('matches any word case-insensitively (the last as a prefix), facts holding more words first, within the scope asked for', async () => {
    const a = await t.run('sessions.create', { projectId: 'alpha' });
    const b = await t.run('sessions.create', { projectId: 'beta' });
    await t.run('facts.add', { sessionId: a.id, scope: 'project', text: 'Deploy the API with Helm charts' });
    await t.run('facts.add', { sessionId: a.id, scope: 'project', text: 'Helm is banned for the worker' });
    await t.run('facts.add', { sessionId: b.id, scope: 'project', text: 'Deploy beta with Helm too' });
    const texts = async (input: Parameters<TestEngine['run']>[1]) =>
      (await t.run('facts.list', input as never)).facts.map((f) => f.text);
    const sorted = async (input: Parameters<TestEngine['run']>[1]) => (await texts(input)).sort();
    expect(await sorted({ text: 'helm DEPLOY' })).toEqual([
      'Deploy beta with Helm too',
      'Deploy the API with Helm charts',
      'Helm is banned for the worker',
    ]);
    // By relevance, the facts holding both words come before the one holding one.
    expect((await texts({ text: 'helm DEPLOY', sort: 'relevance' })).at(-1)).toBe('Helm is banned for the worker');
    expect(await sorted({ text: 'deploy hel' })).toEqual([
      'Deploy beta with Helm too',
      'Deploy the API with Helm charts',
      'Helm is banned for the worker',
    ]);
    expect(await sorted({ text: 'chart' })).toEqual(['Deploy the API with Helm charts']);
    expect(await sorted({ text: 'helm', scope: 'project', scopeKey: 'alpha' })).toEqual([
      'Deploy the API with Helm charts',
      'Helm is banned for the worker',
    ]);
    expect(await sorted({ text: 'charts beta' })).toEqual([
      'Deploy beta with Helm too',
      'Deploy the API with Helm charts',
    ]);
    expect(await sorted({ text: 'kubernetes' })).toEqual([]);
    // No word characters: a plain substring match.
    await t.run('facts.add', { sessionId: a.id, scope: 'project', text: 'Paths use / not \\' });
    expect(await sorted({ text: '/' })).toEqual(['Paths use / not \\']);
    // Deleted facts leave the index.
    const gone = (await t.run('facts.list', { text: 'banned' })).facts[0]!;
    await t.run('facts.delete', { factId: gone.id });
    expect(await sorted({ text: 'banned' })).toEqual([]);
  });
});
