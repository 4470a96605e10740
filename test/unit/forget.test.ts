import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';

describe('forget', () => {
  let t: TestEngine;
  beforeEach(() => (t = openTestEngine()));
  afterEach(() => t.close());

  async function seed() {
    const a = await t.run('sessions.create', { projectId: 'p', title: 'A' });
    const b = await t.run('sessions.create', { projectId: 'p', title: 'B' });
    const c = await t.run('sessions.create', { projectId: 'p', title: 'C' });
    const ma = await t.run('messages.add', { sessionId: a.id, role: 'user', content: 'We deploy with Helm' });
    const shared = await t.run('facts.add', {
      sessionId: a.id,
      messageId: ma.id,
      scope: 'project',
      kind: 'decision',
      text: 'Deploy with Helm',
    });
    await t.run('facts.add', { sessionId: b.id, scope: 'project', kind: 'decision', text: 'Deploy with Helm' });
    await t.run('facts.add', { sessionId: c.id, scope: 'project', kind: 'decision', text: 'Deploy with Helm' });
    const onlyA = await t.run('facts.add', {
      sessionId: a.id,
      scope: 'project',
      kind: 'fact',
      text: 'Staging is eu-west-1',
    });
    const sessionFact = await t.run('facts.add', {
      sessionId: a.id,
      scope: 'session',
      kind: 'fact',
      text: 'A is about billing',
    });
    const onlyB = await t.run('facts.add', { sessionId: b.id, scope: 'project', kind: 'fact', text: 'B only' });
    return { a, b, c, shared: shared.fact, onlyA: onlyA.fact, sessionFact: sessionFact.fact, onlyB: onlyB.fact };
  }

  it('dry run reports exactly what would go and what stays, and changes nothing', async () => {
    const s = await seed();
    const before = t.engine.db.prepare('SELECT count(*) AS n FROM memory_fact_evidence').get();
    const r = await t.run('sessions.delete', { sessionId: s.a.id, dryRun: true });
    expect(r.dryRun).toBe(true);
    expect(r.deleted.map((f) => f.id).sort()).toEqual([s.onlyA.id, s.sessionFact.id].sort());
    expect(r.kept).toHaveLength(1);
    expect(r.kept[0]).toMatchObject({ id: s.shared.id, reinforcementAfter: 2 });
    expect(r.kept[0]!.supportedBy.sort()).toEqual([s.b.id, s.c.id].sort());
    expect(r.evidenceRemoved).toBe(3);
    expect(r.messagesRemoved).toBe(1);
    expect(t.engine.db.prepare('SELECT count(*) AS n FROM memory_fact_evidence').get()).toEqual(before);
    expect((await t.run('sessions.get', { sessionId: s.a.id })).id).toBe(s.a.id);
  });

  it('deletes unsupported facts, keeps shared ones with reinforcement recomputed', async () => {
    const s = await seed();
    const dry = await t.run('sessions.delete', { sessionId: s.a.id, dryRun: true });
    const r = await t.run('sessions.delete', { sessionId: s.a.id });
    expect({ ...r, dryRun: true }).toEqual(dry);
    await expect(t.run('facts.get', { factId: s.onlyA.id })).rejects.toThrow(/fact not found/);
    await expect(t.run('facts.get', { factId: s.sessionFact.id })).rejects.toThrow(/fact not found/);
    const shared = await t.run('facts.get', { factId: s.shared.id });
    expect(shared.reinforcement).toBe(2);
    expect(shared.evidence.map((e) => e.sessionId).sort()).toEqual([s.b.id, s.c.id].sort());
    expect((await t.run('facts.get', { factId: s.onlyB.id })).reinforcement).toBe(1);
    await expect(t.run('sessions.get', { sessionId: s.a.id })).rejects.toThrow(/session not found/);
    expect(t.engine.db.prepare('SELECT count(*) AS n FROM session_messages WHERE session_id = ?').get(s.a.id)).toEqual({
      n: 0,
    });
    // The final supporting source can be forgotten too.
    await t.run('sessions.delete', { sessionId: s.b.id });
    await t.run('sessions.delete', { sessionId: s.c.id });
    await expect(t.run('facts.get', { factId: s.shared.id })).rejects.toThrow(/fact not found/);
  });

  it('leaves no trace of an emptied scope: the forgotten session id and workspace path go too', async () => {
    const lead = await t.run('sessions.create', { workspace: '/srv/client-x', title: 'client x' });
    const other = await t.run('sessions.create', { projectId: 'p' });
    await t.run('facts.add', { sessionId: lead.id, scope: 'session', text: 'Client X is renegotiating' });
    await t.run('facts.add', { sessionId: lead.id, scope: 'workspace', text: 'Client X builds with bazel' });
    await t.run('facts.add', { sessionId: other.id, scope: 'project', text: 'P ships weekly' });
    const scopes = () =>
      t.engine.db.prepare('SELECT scope, scope_key AS key, facts FROM memory_scopes ORDER BY scope').all();
    expect(scopes()).toHaveLength(3);
    await t.run('sessions.delete', { sessionId: lead.id });
    expect(scopes()).toEqual([{ scope: 'project', key: 'p', facts: 1 }]);
    // A scope that comes back starts afresh.
    const again = await t.run('sessions.create', { workspace: '/srv/client-x' });
    await t.run('facts.add', { sessionId: again.id, scope: 'workspace', text: 'Client X builds with bazel' });
    expect(scopes()).toContainEqual({ scope: 'workspace', key: '/srv/client-x', facts: 1 });
    expect(
      (await t.run('memory.search', { sessionId: again.id, query: 'bazel builds', sources: ['facts'] })).results,
    ).toHaveLength(1);
  });

  it('takes team members and side chats with the session, and their evidence', async () => {
    const lead = await t.run('sessions.create', { projectId: 'p' });
    const member = await t.run('sessions.create', { kind: 'team-member', parentSessionId: lead.id });
    const side = await t.run('sessions.create', { kind: 'side-chat', parentSessionId: member.id });
    const other = await t.run('sessions.create', { projectId: 'p' });
    const f = await t.run('facts.add', {
      sessionId: side.id,
      scope: 'project',
      kind: 'fact',
      text: 'found in a side chat',
    });
    await t.run('facts.add', { sessionId: other.id, scope: 'project', kind: 'fact', text: 'shared with other' });
    await t.run('facts.add', { sessionId: member.id, scope: 'project', kind: 'fact', text: 'shared with other' });
    const r = await t.run('sessions.delete', { sessionId: lead.id });
    expect(r.sessionIds.sort()).toEqual([lead.id, member.id, side.id].sort());
    expect(r.deleted.map((d) => d.id)).toEqual([f.fact.id]);
    expect(r.kept.map((k) => k.text)).toEqual(['shared with other']);
    expect(t.engine.db.prepare('SELECT count(*) AS n FROM sessions').get()).toEqual({ n: 1 });
  });

  it('deleting one fact removes its evidence; dry run does not', async () => {
    const s = await seed();
    const dry = await t.run('facts.delete', { factId: s.shared.id, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, evidenceRemoved: 3 });
    expect((await t.run('facts.get', { factId: s.shared.id })).evidence).toHaveLength(3);
    await t.run('facts.delete', { factId: s.shared.id });
    expect(
      t.engine.db
        .prepare(
          'SELECT count(*) AS n FROM memory_fact_evidence WHERE fact_seq = (SELECT seq FROM memory_facts WHERE id = ?)',
        )
        .get(s.shared.id),
    ).toEqual({ n: 0 });
    await expect(t.run('facts.delete', { factId: s.shared.id })).rejects.toThrow(/fact not found/);
    await expect(t.run('sessions.delete', { sessionId: 'missing' })).rejects.toThrow(/session not found: missing/);
  });

  it('removes the dream watermark of a forgotten session', async () => {
    const s = await seed();
    t.engine.db.prepare('INSERT INTO dream_log (session_id, processed_at, updated_at) VALUES (?, 1, 1)').run(s.a.id);
    await t.run('sessions.delete', { sessionId: s.a.id });
    expect(t.engine.db.prepare('SELECT count(*) AS n FROM dream_log').get()).toEqual({ n: 0 });
  });

  it("a member's forget hands the lead only the facts the lead has no evidence of", async () => {
    const lead = await t.run('sessions.create', { projectId: 'p', title: 'lead' });
    const member = await t.run('sessions.create', { kind: 'team-member', parentSessionId: lead.id });
    const add = (sessionId: string, text: string) => t.run('facts.add', { sessionId, scope: 'project', text });
    const both = (await add(member.id, 'Both saw this')).fact;
    await add(lead.id, 'Both saw this');
    const memberOnly = (await add(member.id, 'Only the member saw this')).fact;
    // The lead has evidence of something else, so it has an evidence ref of its own.
    await add(lead.id, 'The lead saw this alone');
    const r = await t.run('sessions.delete', { sessionId: member.id });
    expect(r.deleted).toEqual([]);
    expect(r.kept).toEqual([
      expect.objectContaining({ id: both.id, reinforcementAfter: 1, supportedBy: [lead.id], handedToLead: false }),
      expect.objectContaining({ id: memberOnly.id, reinforcementAfter: 1, supportedBy: [lead.id], handedToLead: true }),
    ]);
    for (const id of [both.id, memberOnly.id]) {
      const fact = await t.run('facts.get', { factId: id });
      expect(fact.reinforcement).toBe(1);
      expect(fact.evidence.map((e) => e.sessionId)).toEqual([lead.id]);
    }
  });
});
