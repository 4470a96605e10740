import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine();
});
afterEach(async () => {
  await t.close();
});

const session = (input: Record<string, unknown>) => t.run('sessions.create', input as never);
const TEXT = 'The billing service retries webhooks with exponential backoff';
const observe = (sessionId: string) =>
  t.run('facts.add', { sessionId, text: TEXT, scope: 'project', kind: 'decision' } as never);
const citedSession = async (sessionId: string) => {
  const recalled = await t.run('memory.recall', { sessionId, text: 'billing webhooks backoff' });
  const searched = await t.run('memory.search', { sessionId, query: 'billing webhooks backoff', sources: ['facts'] });
  expect(recalled.facts).toHaveLength(1);
  expect(searched.results[0]!.citation.sessionId).toBe(recalled.facts[0]!.citation.sessionId);
  return recalled.facts[0]!.citation.sessionId;
};

describe('the evidence a fact is cited with', () => {
  it("is the asking team's own when it has some, else the oldest, ties broken by session id", async () => {
    const first = await session({ projectId: 'alpha' });
    const second = await session({ projectId: 'alpha' });
    const member = await session({ kind: 'team-member', parentSessionId: second.id });
    const stranger = await session({ projectId: 'alpha' });
    await observe(first.id);
    t.clock.advance(60_000);
    await observe(second.id);

    expect(await citedSession(second.id)).toBe(second.id);
    expect(await citedSession(member.id)).toBe(second.id);
    expect(await citedSession(first.id)).toBe(first.id);
    expect(await citedSession(stranger.id)).toBe(first.id);

    // Two sessions' evidence at the same moment: the smaller session id is the older.
    const third = await session({ projectId: 'alpha' });
    const fourth = await session({ projectId: 'alpha' });
    const TWIN = 'Deploy freezes start every Friday at noon';
    t.clock.advance(60_000);
    for (const s of [fourth, third]) {
      await t.run('facts.add', { sessionId: s.id, text: TWIN, scope: 'project', kind: 'decision' } as never);
    }
    const twin = await t.run('memory.recall', { sessionId: stranger.id, text: 'deploy freezes friday noon' });
    expect(twin.facts[0]!.citation.sessionId).toBe([third.id, fourth.id].sort()[0]);
  });
});
