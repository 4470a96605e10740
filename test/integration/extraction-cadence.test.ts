import { afterEach, describe, expect, it } from 'vitest';
import { openTestEngine, tempHome, type TestEngine } from '../helpers/home';
import { ManualClock } from '../../src/shared/clock';
import { getCursor } from '../../src/main/store/extraction-states';
import { appendMessage } from '../../src/main/store/messages';
import { writeTx } from '../../src/main/store/db';
import { newId } from '../../src/shared/ids';

let open: TestEngine[] = [];
afterEach(async () => {
  for (const t of open) await t.close();
  open = [];
});

const engineAt = (home?: string, clock = new ManualClock()) => {
  const t = openTestEngine({ home, clock });
  open.push(t);
  return t;
};

/** One turn through the CLI/HTTP door: a user message, optional tool rounds, the completed reply. */
async function turn(t: TestEngine, sessionId: string, n: number, toolRounds = 0) {
  await t.run('messages.add', { sessionId, role: 'user', content: `We decided to use tool number ${n}.` });
  for (let i = 0; i < toolRounds; i++) {
    await t.run('messages.add', { sessionId, role: 'assistant', content: 'calling grep', toolCallRound: true });
    await t.run('messages.add', { sessionId, role: 'tool', content: 'grep output: always use tabs' });
  }
  await t.run('messages.add', { sessionId, role: 'assistant', content: `Done with ${n}.` });
  const pending = t.engine.extraction.pending();
  await Promise.all(pending);
  return pending.length > 0;
}

describe('extraction cadence', () => {
  it('runs after the 3rd completed response, then after every 10 more (13th, 23rd); tool rounds never count', async () => {
    const t = engineAt();
    const s = await t.run('sessions.create', { projectId: 'p1' });
    const due: number[] = [];
    for (let n = 1; n <= 23; n++) if (await turn(t, s.id, n, n % 2)) due.push(n);
    expect(due).toEqual([3, 13, 23]);
    const state = getCursor(t.engine.db, s.id)!;
    // 3 decisions in the first window, then 10 per window capped at 8 per extractor call (the
    // newest win): 3 + 8 + 8.
    expect(state).toMatchObject({ status: 'idle', lastResponseCount: 23, attempts: 3, factsStored: 19 });
    const facts = await t.run('facts.list', { scope: 'project', scopeKey: 'p1', limit: 100 });
    expect(facts.facts).toHaveLength(19);
    expect(facts.facts.some((f) => f.text.includes('tool number 13.'))).toBe(true);
    // Raw tool output ("always use tabs") was never extraction input.
    expect(facts.facts.some((f) => /tabs/i.test(f.text))).toBe(false);
  });

  it('counting survives a restart: 2 responses, restart, the 3rd is due', async () => {
    const home = tempHome();
    try {
      const clock = new ManualClock();
      const first = openTestEngine({ home: home.dir, clock });
      const s = await first.run('sessions.create', {});
      expect(await turn(first, s.id, 1)).toBe(false);
      expect(await turn(first, s.id, 2)).toBe(false);
      await first.engine.close();
      const second = openTestEngine({ home: home.dir, clock });
      expect(await turn(second, s.id, 3)).toBe(true);
      for (let n = 4; n <= 12; n++) expect(await turn(second, s.id, n)).toBe(false);
      await second.engine.close();
      const third = openTestEngine({ home: home.dir, clock });
      expect(await turn(third, s.id, 13)).toBe(true);
      await third.engine.close();
    } finally {
      home.cleanup();
    }
  });

  it('team-member and side-chat sessions never count toward their own extraction', async () => {
    const t = engineAt();
    const lead = await t.run('sessions.create', { projectId: 'p1' });
    const member = await t.run('sessions.create', { kind: 'team-member', parentSessionId: lead.id });
    const side = await t.run('sessions.create', { kind: 'side-chat', parentSessionId: lead.id });
    for (let n = 1; n <= 13; n++) {
      expect(await turn(t, member.id, n)).toBe(false);
      expect(await turn(t, side.id, n)).toBe(false);
    }
    expect(getCursor(t.engine.db, member.id)).toBeUndefined();
    expect(getCursor(t.engine.db, side.id)).toBeUndefined();
    // Nor do they push the lead along: the lead's own 3rd response is the first due one.
    expect(await turn(t, lead.id, 1)).toBe(false);
    expect(await turn(t, lead.id, 2)).toBe(false);
    expect(await turn(t, lead.id, 3)).toBe(true);
    await expect(t.run('extraction.run', { sessionId: member.id })).rejects.toThrow(/team-member session/);
  });

  it('compacted responses still count, hidden and synthetic assistant rows do not', async () => {
    const t = engineAt();
    const s = await t.run('sessions.create', {});
    await turn(t, s.id, 1);
    await turn(t, s.id, 2);
    t.engine.db.prepare('UPDATE session_messages SET compacted = 1 WHERE session_id = ?').run(s.id);
    await t.run('messages.add', { sessionId: s.id, role: 'assistant', content: 'hidden copy', hidden: true });
    await t.run('messages.add', { sessionId: s.id, role: 'assistant', content: 'synthetic', systemGenerated: true });
    expect(t.engine.extraction.pending()).toHaveLength(0);
    expect(await turn(t, s.id, 3)).toBe(true);
  });

  it('a disabled extraction never runs from the cadence, but extract run still works', async () => {
    const settings = (await import('../../src/main/settings')).defaultSettings();
    settings.extraction.enabled = false;
    const t = openTestEngine({ settings });
    open.push(t);
    const s = await t.run('sessions.create', {});
    for (let n = 1; n <= 3; n++) expect(await turn(t, s.id, n)).toBe(false);
    const r = await t.run('extraction.run', { sessionId: s.id });
    expect(r).toMatchObject({ outcome: 'stored', factsStored: 3 });
  });
});

describe('extraction input window', () => {
  it('reads visible user/assistant messages and summaries only, and cites the message each fact came from', async () => {
    const t = engineAt();
    const s = await t.run('sessions.create', { projectId: 'p1' });
    const add = (content: string, extra: Record<string, unknown> = {}) =>
      writeTx(t.engine.db, () =>
        appendMessage(t.engine.db, { id: newId(), sessionId: s.id, role: 'user', content, ...extra }, t.clock.now()),
      );
    const visible = add('We decided to use Postgres for storage.');
    add('We decided to use a hidden copy.', { hidden: true });
    add('We decided to use copied side-chat context.', { sideChatContext: true });
    add('We decided to use a synthetic directive.', { systemGenerated: true });
    add('We decided to use the tool output.', { role: 'tool' });
    add('We decided to use a tool-call round.', { role: 'assistant', toolCallRound: true });
    add('We decided to use a system prompt.', { role: 'system' });
    const summary = add('We decided to use Redis for sessions.', { isSummary: true, hidden: true });
    const compacted = add('We decided to use Kafka for events.');
    t.engine.db.prepare('UPDATE session_messages SET compacted = 1 WHERE id = ?').run(compacted.id);
    const r = await t.run('extraction.run', { sessionId: s.id });
    expect(r).toMatchObject({ outcome: 'stored', messagesRead: 3, factsStored: 3 });
    const facts = (await t.run('facts.list', { sessionId: s.id, limit: 50 })).facts;
    expect(facts.map((f) => f.text).sort()).toEqual([
      'We decided to use Kafka for events.',
      'We decided to use Postgres for storage.',
      'We decided to use Redis for sessions.',
    ]);
    const evidence = async (text: string) =>
      (await t.run('facts.get', { factId: facts.find((f) => f.text.includes(text))!.id })).evidence;
    expect((await evidence('Postgres'))[0]).toMatchObject({ sessionId: s.id, messageId: visible.id });
    expect((await evidence('Redis'))[0]!.messageId).toBe(summary.id);
    // The cursor moved past every row, skipped ones included, so nothing is read twice.
    expect(getCursor(t.engine.db, s.id)!.cursorSeq).toBe(compacted.seq);
    expect(await t.run('extraction.run', { sessionId: s.id })).toMatchObject({
      outcome: 'nothing-new',
      messagesRead: 0,
    });
  });

  it('bounds the window by messages and characters and works through a backlog window by window', async () => {
    const settings = (await import('../../src/main/settings')).defaultSettings();
    settings.extraction.maxMessages = 4;
    settings.extraction.maxWindowsPerRun = 2;
    const t = openTestEngine({ settings });
    open.push(t);
    const s = await t.run('sessions.create', {});
    for (let n = 1; n <= 10; n++)
      await t.run('messages.add', { sessionId: s.id, role: 'user', content: `We decided to use tool number ${n}.` });
    const first = await t.run('extraction.run', { sessionId: s.id });
    expect(first).toMatchObject({ windows: 2, messagesRead: 8, factsStored: 8, behind: true, cursorSeq: 8 });
    const second = await t.run('extraction.run', { sessionId: s.id });
    expect(second).toMatchObject({ windows: 1, messagesRead: 2, factsStored: 2, behind: false, cursorSeq: 10 });
    const status = await t.run('extraction.status', { sessionId: s.id });
    expect(status.sessions[0]).toMatchObject({ pendingMessages: 0, factsStored: 10, attempts: 2 });
  });
});

describe('extraction driven by turns', () => {
  it('turns.complete drives the cadence through compaction; recall rows and tool output are never input', async () => {
    const t = engineAt();
    const s = await t.run('sessions.create', { projectId: 'p1' });
    const due: number[] = [];
    for (let n = 1; n <= 13; n++) {
      await t.run('turns.begin', { sessionId: s.id, userText: `We decided to use library number ${n}.` });
      const done = await t.run('turns.complete', {
        sessionId: s.id,
        assistantText: `Done ${n}.`,
        toolRounds: [{ content: 'reading files', toolOutputs: ['We decided to use the tool output.'] }],
      });
      expect(done.completedResponses).toBe(n);
      const pending = t.engine.extraction.pending();
      await Promise.all(pending);
      if (pending.length) due.push(n);
      if (n === 8) await t.run('turns.compact', { sessionId: s.id, keepLastTurns: 1 });
    }
    expect(due).toEqual([3, 13]);
    expect(getCursor(t.engine.db, s.id)).toMatchObject({ status: 'idle', lastResponseCount: 13 });
    const texts = (await t.run('facts.list', { sessionId: s.id, limit: 100 })).facts.map((f) => f.text);
    expect(texts).not.toContain('We decided to use the tool output.');
    expect(texts).toContain('We decided to use library number 13.');
    const badEvidence = t.engine.db
      .prepare(
        `SELECT count(*) AS n FROM memory_fact_evidence e JOIN session_messages m ON m.id = e.message_id
         WHERE m.role = 'tool' OR m.tool_call_round = 1 OR (m.hidden = 1 AND m.is_summary = 0) OR m.system_generated = 1`,
      )
      .get() as { n: number };
    expect(badEvidence.n).toBe(0);
  });
});
