import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';

describe('sessions.list and sessions.get details', () => {
  let t: TestEngine;
  beforeEach(() => (t = openTestEngine()));
  afterEach(() => t.close());

  it('counts each listed session’s own messages (none is 0), and get lists facts and children', async () => {
    const lead = await t.run('sessions.create', { projectId: 'p', title: 'lead' });
    t.clock.advance(1);
    const empty = await t.run('sessions.create', { projectId: 'p', title: 'empty' });
    t.clock.advance(1);
    const member = await t.run('sessions.create', { parentSessionId: lead.id, kind: 'team-member', title: 'member' });
    for (const content of ['one', 'two', 'three']) {
      await t.run('messages.add', { sessionId: lead.id, role: 'user', content });
    }
    await t.run('messages.add', { sessionId: member.id, role: 'assistant', content: 'member says hi' });
    await t.run('facts.add', { sessionId: lead.id, scope: 'project', kind: 'fact', text: 'Lead fact one' });
    await t.run('facts.add', { sessionId: lead.id, scope: 'project', kind: 'fact', text: 'Lead fact two' });

    const { sessions } = await t.run('sessions.list', { limit: 10 });
    const counts = Object.fromEntries(sessions.map((s) => [s.title, s.messageCount]));
    expect(counts).toEqual({ lead: 3, empty: 0, member: 1 });

    const got = await t.run('sessions.get', { sessionId: lead.id });
    expect(got).toMatchObject({ messageCount: 3, factCount: 2 });
    expect(got.children.map((c) => c.id)).toEqual([member.id]);
    expect((await t.run('sessions.get', { sessionId: empty.id })).messageCount).toBe(0);
  });
});
