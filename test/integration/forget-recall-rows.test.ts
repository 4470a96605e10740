import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { scrubNow } from '../../src/main/memory/recall/index-maintenance';

const dbBytes = (home: string) =>
  Buffer.concat(
    ['memory.db', 'memory.db-wal']
      .map((f) => `${home}/${f}`)
      .filter(existsSync)
      .map((f) => readFileSync(f)),
  );

/**
 * A turn persists its recall block in the asking session's transcript (so the turn replays byte for
 * byte). That block is a copy of the recalled facts: forgetting a fact, or the session that cited
 * it, takes the fact's line (or the forgotten session's id) out of every persisted block.
 */
describe("forget reaches other sessions' persisted recall blocks", () => {
  let t: TestEngine;
  beforeEach(() => (t = openTestEngine()));
  afterEach(() => t.close());

  const recallRows = (sessionId: string) =>
    t.engine.db
      .prepare("SELECT content FROM session_messages WHERE session_id = ? AND model_context = 'memory_recall'")
      .all(sessionId) as { content: string }[];

  it('drops a forgotten fact from the blocks of sessions that recalled it', async () => {
    const a = await t.run('sessions.create', { projectId: 'alpha' });
    const b = await t.run('sessions.create', { projectId: 'bravo' });
    await t.run('facts.add', {
      sessionId: a.id,
      scope: 'user',
      kind: 'preference',
      text: 'I prefer Quorvantic tea in the afternoons',
    });
    await t.run('facts.add', { sessionId: b.id, scope: 'project', text: 'Bravo brews afternoon tea in the lab' });
    await t.run('turns.begin', { sessionId: b.id, userText: 'which afternoon tea do I prefer?' });
    expect(
      recallRows(b.id)
        .map((r) => r.content)
        .join(),
    ).toContain('Quorvantic');

    await t.run('sessions.delete', { sessionId: a.id });
    const [row] = recallRows(b.id);
    expect(row!.content).not.toContain('Quorvantic');
    expect(row!.content).toContain('Bravo brews afternoon tea in the lab');
    expect(row!.content).not.toContain(a.id);
    // The window still replays: the block is whole, with the facts that remain.
    const turn = await t.run('turns.begin', { sessionId: b.id, userText: 'and in the lab?' });
    expect(turn.context.block).toContain('Bravo brews afternoon tea');
    expect(turn.context.block).not.toContain('Quorvantic');
    scrubNow(t.engine.db);
    expect(dbBytes(t.home).includes('Quorvantic')).toBe(false);
  });

  it("removes a block left empty, and a forgotten team member's id from its lead's blocks", async () => {
    const lead = await t.run('sessions.create', { projectId: 'loom' });
    const member = await t.run('sessions.create', { kind: 'team-member', parentSessionId: lead.id });
    const said = await t.run('messages.add', { sessionId: member.id, role: 'user', content: 'Loom uses ARM runners' });
    const fact = await t.run('facts.add', {
      sessionId: member.id,
      messageId: said.id,
      scope: 'project',
      text: 'Loom builds run on ARM runners',
    });
    await t.run('turns.begin', { sessionId: lead.id, userText: 'where do loom builds run?' });
    expect(recallRows(lead.id)[0]!.content).toContain(member.id);
    await t.run('sessions.delete', { sessionId: member.id });
    const [row] = recallRows(lead.id);
    expect(row!.content).toContain('Loom builds run on ARM runners');
    expect(row!.content).not.toContain(member.id);
    expect(row!.content).not.toContain(said.id);

    await t.run('facts.delete', { factId: fact.fact.id });
    expect(recallRows(lead.id)).toEqual([]);
    expect((await t.run('messages.list', { sessionId: lead.id, includeHidden: true })).messages).toHaveLength(1);
  });
});
