import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { sessionSourceSlug } from '../../src/main/dream/source-page';

const sourcePagePath = (id: string) => `sources/${sessionSourceSlug(id)}.md`;

/**
 * One model for team members and side chats: what they learn is stored for the lead, their
 * evidence keeps the exact member message (provenance) and counts as the lead's team context.
 * Dream consolidates it through the lead's source page; forgetting only a member hands its
 * evidence to the lead; forgetting the lead forgets the whole team.
 */
describe('team members and side chats', () => {
  let t: TestEngine;
  beforeEach(() => (t = openTestEngine()));
  afterEach(() => t.close());

  const read = (rel: string) => readFileSync(path.join(t.engine.paths.wiki, rel), 'utf8');

  async function team() {
    const lead = await t.run('sessions.create', { projectId: 'loom', title: 'Lead' });
    t.clock.advance(1000);
    await t.run('messages.add', { sessionId: lead.id, role: 'user', content: 'Plan the loom release' });
    const member = await t.run('sessions.create', { kind: 'team-member', parentSessionId: lead.id, title: 'QA' });
    const side = await t.run('sessions.create', { kind: 'side-chat', parentSessionId: lead.id });
    t.clock.advance(1000);
    const said = await t.run('messages.add', {
      sessionId: member.id,
      role: 'user',
      content: 'The loom test matrix covers ARM runners',
    });
    const memberFact = (
      await t.run('facts.add', {
        sessionId: member.id,
        messageId: said.id,
        scope: 'session',
        kind: 'fact',
        text: 'The loom test matrix covers ARM runners',
      })
    ).fact;
    const sideFact = (
      await t.run('facts.add', {
        sessionId: side.id,
        scope: 'project',
        kind: 'decision',
        text: 'Loom releases are cut on Thursdays',
      })
    ).fact;
    return { lead, member, side, said, memberFact, sideFact };
  }

  it("stores for the lead, keeps the member's message as evidence, and Dream writes it on the lead's page", async () => {
    const s = await team();
    expect(s.memberFact).toMatchObject({ scope: 'session', scopeKey: s.lead.id });
    const evidence = (await t.run('facts.get', { factId: s.memberFact.id })).evidence;
    expect(evidence).toEqual([expect.objectContaining({ sessionId: s.member.id, messageId: s.said.id })]);

    await t.run('dream.run', { drain: true });
    const page = read(sourcePagePath(s.lead.id));
    expect(page).toContain('The loom test matrix covers ARM runners');
    expect(page).toContain(`message #${s.said.seq} of a team member`);
    expect(page).toContain('Loom releases are cut on Thursdays');
    const group = t.engine.wiki.listSection('topics').find((n) => n.startsWith('project-loom-'))!;
    expect(read(`topics/${group}`)).toContain('Loom releases are cut on Thursdays');
    // Members never get a source page of their own.
    expect(t.engine.wiki.exists(sourcePagePath(s.member.id))).toBe(false);

    // New evidence from a member (no new message from the lead) puts the lead back in the queue.
    t.clock.advance(60_000);
    await t.run('facts.add', { sessionId: s.member.id, scope: 'project', text: 'Loom nightly builds run on ARM' });
    expect((await t.run('dream.status', {})).pendingSessions).toBe(1);
    await t.run('dream.run', { drain: true });
    expect(read(sourcePagePath(s.lead.id))).toContain('Loom nightly builds run on ARM');
  });

  it("forgetting only a member hands its evidence to the lead; the lead's team keeps the facts", async () => {
    const s = await team();
    await t.run('dream.run', { drain: true });
    const preview = await t.run('sessions.delete', { sessionId: s.member.id, dryRun: true });
    expect(preview.deleted).toEqual([]);
    expect(preview.kept).toEqual([
      expect.objectContaining({
        id: s.memberFact.id,
        supportedBy: [s.lead.id],
        reinforcementAfter: 1,
        handedToLead: true,
      }),
    ]);
    const done = await t.run('sessions.delete', { sessionId: s.member.id });
    expect({ ...done, dryRun: true, wiki: preview.wiki }).toEqual(preview);
    const fact = await t.run('facts.get', { factId: s.memberFact.id });
    expect(fact.reinforcement).toBe(1);
    expect(fact.evidence).toEqual([expect.objectContaining({ sessionId: s.lead.id, messageId: null })]);
    await expect(t.run('sessions.get', { sessionId: s.member.id })).rejects.toThrow(/not found/);
    // The lead's page no longer points at the forgotten member's message once Dream rewrites it.
    expect((await t.run('dream.status', {})).pendingSessions).toBe(1);
    await t.run('dream.run', { drain: true });
    const page = read(sourcePagePath(s.lead.id));
    expect(page).toContain('The loom test matrix covers ARM runners');
    expect(page).not.toContain('of a team member');
  });

  it('forgetting the lead forgets the whole team, its facts and its wiki copies', async () => {
    const s = await team();
    await t.run('dream.run', { drain: true });
    const r = await t.run('sessions.delete', { sessionId: s.lead.id });
    expect(r.sessionIds.sort()).toEqual([s.lead.id, s.member.id, s.side.id].sort());
    expect(r.deleted.map((f) => f.id).sort()).toEqual([s.memberFact.id, s.sideFact.id].sort());
    expect(r.wiki.pages).toContainEqual({ path: sourcePagePath(s.lead.id), change: 'delete' });
    expect(t.engine.wiki.exists(sourcePagePath(s.lead.id))).toBe(false);
    const everything = t.engine.wiki
      .listSection('topics')
      .map((n) => read(`topics/${n}`))
      .join('\n');
    expect(everything).not.toContain('Loom releases are cut on Thursdays');
  });
});
