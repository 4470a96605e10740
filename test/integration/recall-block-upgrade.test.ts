import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { escapeForBoundary, RECALL_BLOCK_CLOSE, RECALL_BLOCK_OPEN } from '../../src/main/memory/recall/block';
import { upgradeStep } from '../../src/main/memory/recall/block-upgrade';

/**
 * Recall blocks persisted before citations were confined cite sessions of other contexts by id
 * (the attack: bravo's transcript carried alpha's session id). The upgrade rewrites them once.
 */
describe('upgrading recall blocks persisted by an earlier version', () => {
  let t: TestEngine;
  beforeEach(() => (t = openTestEngine()));
  afterEach(() => t.close());

  it("replaces citations outside the block's team with refs and drops records of forgotten facts", async () => {
    const alpha = await t.run('sessions.create', { projectId: 'alpha' });
    const bravo = await t.run('sessions.create', { projectId: 'bravo' });
    const said = await t.run('messages.add', { sessionId: alpha.id, role: 'user', content: 'I prefer tabs' });
    const pref = (
      await t.run('facts.add', {
        sessionId: alpha.id,
        messageId: said.id,
        scope: 'user',
        kind: 'preference',
        text: 'I prefer tabs',
      })
    ).fact;
    const own = (await t.run('facts.add', { sessionId: bravo.id, scope: 'project', text: 'Bravo ships weekly' })).fact;
    const line = (id: string, text: string, citation: object) =>
      escapeForBoundary(JSON.stringify({ id, text, kind: 'fact', scope: 'user', confidence: 'medium', citation }));
    const old = [
      RECALL_BLOCK_OPEN,
      line(pref.id, 'I prefer tabs', { sessionId: alpha.id, messageId: said.id }),
      line(own.id, 'Bravo ships weekly', { sessionId: bravo.id, messageId: null }),
      line('01a00000-0000-7000-8000-00000000dead', 'A fact forgotten long ago', {
        sessionId: alpha.id,
        messageId: null,
      }),
      RECALL_BLOCK_CLOSE,
    ].join('\n');
    const row = await t.run('messages.add', {
      sessionId: bravo.id,
      role: 'user',
      content: old,
      hidden: true,
      systemGenerated: true,
    });
    const db = t.engine.db;
    db.prepare("UPDATE session_messages SET model_context = 'memory_recall' WHERE id = ?").run(row.id);
    db.prepare("INSERT INTO upgrade_tasks (name) VALUES ('recall-block-citations')").run();

    let steps = 0;
    while (upgradeStep(db, 1) && steps < 100) steps++;
    const content = (db.prepare('SELECT content FROM session_messages WHERE id = ?').get(row.id) as { content: string })
      .content;
    expect(content).not.toContain(alpha.id);
    expect(content).not.toContain(said.id);
    expect(content).not.toContain('forgotten long ago');
    const records = content
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    expect(records.map((r) => r.id)).toEqual([pref.id, own.id]);
    expect(records[1].citation).toEqual({ sessionId: bravo.id, messageId: null });
    const resolved = await t.run('citations.resolve', { ref: records[0].citation.ref });
    expect(resolved).toMatchObject({ sessionId: alpha.id, messageId: said.id });
    expect(db.prepare('SELECT * FROM upgrade_tasks').all()).toEqual([]);
  });
});
