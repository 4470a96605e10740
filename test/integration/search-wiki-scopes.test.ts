import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';

/** Dream's pages quote sessions and list their facts: memory_search must not leak them across scopes. */
describe('memory_search over Dream-written wiki pages respects scopes', () => {
  let t: TestEngine;
  beforeEach(() => (t = openTestEngine()));
  afterEach(() => t.close());

  it('returns a consolidated page only to sessions that see every scope on it', async () => {
    const zephyr = await t.run('sessions.create', { projectId: 'zephyr', title: 'Zephyr planning' });
    const zephyrPeer = await t.run('sessions.create', { projectId: 'zephyr' });
    const atlas = await t.run('sessions.create', { projectId: 'atlas' });
    await t.run('messages.add', {
      sessionId: zephyr.id,
      role: 'user',
      content: 'The Bluebird codename stays internal',
    });
    await t.run('messages.add', {
      sessionId: zephyr.id,
      role: 'assistant',
      content: 'Noted: Bluebird codename stays internal.',
    });
    await t.run('facts.add', {
      sessionId: zephyr.id,
      scope: 'project',
      kind: 'decision',
      text: 'The Bluebird codename stays internal',
    });
    await t.run('facts.add', {
      sessionId: zephyr.id,
      scope: 'session',
      kind: 'fact',
      text: 'Bluebird launch slides are in draft',
    });
    await t.run('dream.run', { drain: true });

    const wikiRefs = async (sessionId: string) =>
      (await t.run('memory.search', { sessionId, query: 'Bluebird codename internal', sources: ['wiki'] })).results.map(
        (r) => r.citation.path,
      );
    expect(await wikiRefs(atlas.id)).toEqual([]);
    // The source page holds a session-scoped fact: only zephyr's own team may find it.
    const own = await wikiRefs(zephyr.id);
    expect(own.some((p) => p?.startsWith('sources/'))).toBe(true);
    const peer = await wikiRefs(zephyrPeer.id);
    expect(peer.some((p) => p?.startsWith('sources/'))).toBe(false);
    expect(peer.some((p) => p?.startsWith('topics/'))).toBe(true);

    // A hand-written page carries no scopes and stays searchable everywhere (legacy wiki).
    await t.run('wiki.write', {
      path: 'topics/bluebird-history.md',
      content: '# Bluebird codename history\n\nThe internal codename Bluebird.\n',
    });
    expect(await wikiRefs(atlas.id)).toEqual(['topics/bluebird-history.md']);
  });
});
