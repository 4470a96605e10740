import { afterEach, describe, expect, it } from 'vitest';
import { testResources } from '../helpers/home';

const resources = testResources();
afterEach(() => resources.release());

describe('conversations loaded from history keep their real times', () => {
  it('sessions.create and messages.add accept a past createdAt as epoch ms or ISO-8601', async () => {
    const t = resources.engine();
    t.clock.set(Date.parse('2026-01-01T00:00:00Z'));
    const s = await t.run('sessions.create', { projectId: 'p', createdAt: '2023-05-08T13:56:00Z' });
    expect(s.createdAt).toBe(Date.parse('2023-05-08T13:56:00Z'));
    const a = await t.run('messages.add', {
      sessionId: s.id,
      role: 'user',
      content: 'first',
      createdAt: Date.parse('2023-05-08T13:56:00Z'),
    });
    const b = await t.run('messages.add', {
      sessionId: s.id,
      role: 'assistant',
      content: 'second, same minute',
      createdAt: '2023-05-08T13:56:00+00:00',
    });
    expect(a.createdAt).toBe(Date.parse('2023-05-08T13:56:00Z'));
    // Times stay strictly increasing within a session, so watermarks never tie.
    expect(b.createdAt).toBe(a.createdAt + 1);
    const c = await t.run('messages.add', { sessionId: s.id, role: 'user', content: 'live now' });
    expect(c.createdAt).toBe(t.clock.now());
  });

  it('refuses a time in the future, one before the last message, or a malformed one, and writes nothing', async () => {
    const t = resources.engine();
    t.clock.set(Date.parse('2026-01-01T00:00:00Z'));
    const s = await t.run('sessions.create', { projectId: 'p' });
    await expect(
      t.run('sessions.create', { projectId: 'p', createdAt: Date.parse('2026-01-02T00:00:00Z') }),
    ).rejects.toMatchObject({ code: 'invalid_input', field: 'createdAt' });
    await expect(
      t.run('messages.add', { sessionId: s.id, role: 'user', content: 'x', createdAt: '2027-01-01T00:00:00Z' }),
    ).rejects.toMatchObject({ code: 'invalid_input', field: 'createdAt' });
    await expect(
      t.run('messages.add', { sessionId: s.id, role: 'user', content: 'x', createdAt: 'yesterday' }),
    ).rejects.toMatchObject({ code: 'invalid_input', field: 'createdAt' });
    await t.run('messages.add', { sessionId: s.id, role: 'user', content: 'now' });
    await expect(
      t.run('messages.add', { sessionId: s.id, role: 'user', content: 'x', createdAt: '2020-01-01T00:00:00Z' }),
    ).rejects.toMatchObject({ code: 'invalid_input', field: 'createdAt' });
    const { messages } = await t.run('messages.list', { sessionId: s.id });
    expect(messages.map((m) => m.content)).toEqual(['now']);
    const { sessions } = await t.run('sessions.list', {});
    expect(sessions).toHaveLength(1);
  });
});
