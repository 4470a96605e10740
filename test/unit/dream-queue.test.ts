import { utimesSync, writeFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { pendingNotes, pendingSessions } from '../../src/main/dream/queue';
import { DeterministicConsolidator } from '../../src/main/dream/deterministic';
import type { Consolidator } from '../../src/main/dream/work';
import { manualDream, sessionWith } from './dream-fixtures';
import { sessionSourceSlug } from '../../src/main/dream/source-page';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine();
});
afterEach(() => t.close());

const pendingIds = () => pendingSessions(t.engine.db, 1000).map((p) => p.id);

describe('Dream session queue and watermark', () => {
  it('re-queues a processed session when a visible message is added, not for hidden or synthetic rows', async () => {
    const { session } = await sessionWith(t);
    const dream = manualDream(t.engine);
    expect(pendingIds()).toEqual([session.id]);
    expect(await dream.run({ drain: true })).toMatchObject({ status: 'completed', sessionsProcessed: 1, remaining: 0 });
    expect(pendingIds()).toEqual([]);

    const row = t.engine.db.prepare('SELECT processed_at FROM dream_log WHERE session_id = ?').get(session.id) as {
      processed_at: number;
    };
    const newest = t.engine.db
      .prepare('SELECT max(created_at) AS m FROM session_messages WHERE session_id = ?')
      .get(session.id) as { m: number };
    // The watermark is the newest consumed message, not the time of the run.
    t.clock.advance(3_600_000);
    expect(row.processed_at).toBe(newest.m);

    for (const flags of [{ hidden: true }, { systemGenerated: true }, { sideChatContext: true }]) {
      t.clock.advance(1000);
      await t.run('messages.add', { sessionId: session.id, role: 'user', content: 'invisible', ...flags });
    }
    t.clock.advance(1000);
    await t.run('messages.add', { sessionId: session.id, role: 'system', content: 'system row' });
    expect(pendingIds()).toEqual([]);

    t.clock.advance(1000);
    await t.run('messages.add', { sessionId: session.id, role: 'user', content: 'one more thing' });
    expect(pendingIds()).toEqual([session.id]);
    expect(await dream.run({ drain: false })).toMatchObject({ sessionsProcessed: 1, remaining: 0 });
    expect(pendingIds()).toEqual([]);
  });

  it('a message that arrives during a run keeps the session pending (watermark = consumed message)', async () => {
    const { session } = await sessionWith(t);
    const inner = new DeterministicConsolidator(t.engine.db, t.engine.wiki);
    const sneaky: Consolidator = {
      name: 'sneaky',
      consolidate: async (items, today) => {
        t.clock.advance(1000);
        await t.run('messages.add', { sessionId: session.id, role: 'user', content: 'arrived mid-run' });
        return inner.consolidate(items, today);
      },
    };
    const dream = manualDream(t.engine, { consolidator: () => sneaky });
    expect(await dream.run({ drain: false })).toMatchObject({ sessionsProcessed: 1, remaining: 1 });
    expect(pendingIds()).toEqual([session.id]);
  });

  it("takes top-level sessions only: team members and side chats never become sources; Dream's own are skipped", async () => {
    const lead = await sessionWith(t, { title: 'lead' });
    const member = await t.run('sessions.create', { kind: 'team-member', parentSessionId: lead.session.id });
    const side = await t.run('sessions.create', { kind: 'side-chat', parentSessionId: lead.session.id });
    for (const s of [member, side]) {
      t.clock.advance(1000);
      await t.run('messages.add', { sessionId: s.id, role: 'user', content: 'member or side chat talk' });
    }
    const own = await sessionWith(t, { agentName: 'dream' });
    const unnamed = await sessionWith(t, {});
    expect(own.session.agentName).toBe('dream');
    expect(unnamed.session.agentName).toBeNull();
    expect(pendingIds().sort()).toEqual([lead.session.id, unnamed.session.id].sort());

    const dream = manualDream(t.engine);
    const r = await dream.run({ drain: true });
    expect(r).toMatchObject({ sessionsProcessed: 2, remaining: 0 });
    const sources = t.engine.wiki.listSection('sources');
    expect(sources).toHaveLength(2);
    expect(sources.some((n) => n.includes(member.id.replace(/-/g, '').slice(-8)))).toBe(false);
    expect(sources.some((n) => n.includes(side.id.replace(/-/g, '').slice(-8)))).toBe(false);
    const logged = t.engine.db.prepare('SELECT session_id FROM dream_log').all() as { session_id: string }[];
    expect(logged.map((r) => r.session_id).sort()).toEqual([lead.session.id, unnamed.session.id].sort());
  });

  it('reads a compaction summary, not the rows it replaced; compaction re-queues the session', async () => {
    const { session } = await sessionWith(t, {
      messages: [
        'first question',
        'first answer',
        'second question',
        'second answer',
        'third question',
        'third answer',
      ],
    });
    const dream = manualDream(t.engine);
    await dream.run({ drain: true });
    t.clock.advance(1000);
    const c = await t.run('turns.compact', { sessionId: session.id, keepLastTurns: 1 });
    expect(c.compactedMessages).toBeGreaterThan(0);
    expect(pendingIds()).toEqual([session.id]);
    const { buildTranscript } = await import('../../src/main/dream/transcript');
    const tr = buildTranscript(t.engine.db, session.id, 60_000);
    expect(tr.text).toContain('### PRIOR SUMMARY');
    expect(tr.text).not.toContain('### ASSISTANT\nfirst answer');
    expect(tr.text).toContain('third answer');
    await dream.run({ drain: true });
    expect(pendingIds()).toEqual([]);
  });

  it('re-queues a processed session when new evidence reaches it without a new message', async () => {
    const { session, messages } = await sessionWith(t, { facts: [{ text: 'First decision' }] });
    const dream = manualDream(t.engine);
    await dream.run({ drain: true });
    expect(pendingIds()).toEqual([]);
    t.clock.advance(1000);
    // What an extraction finishing after the response looks like: evidence, no message.
    await t.run('facts.add', {
      sessionId: session.id,
      messageId: messages[1]!.id,
      text: 'Second decision from extraction',
    });
    expect(pendingIds()).toEqual([session.id]);
    await dream.run({ drain: true });
    expect(pendingIds()).toEqual([]);
    const page = t.engine.wiki.read(`sources/${sessionSourceSlug(session.id)}.md`).content;
    expect(page).toContain('Second decision from extraction');
  });

  it('never queues a session without visible messages', async () => {
    await t.run('sessions.create', {});
    const s = await t.run('sessions.create', {});
    await t.run('messages.add', { sessionId: s.id, role: 'user', content: 'hidden', hidden: true });
    expect(pendingIds()).toEqual([]);
  });
});

describe('Dream notes queue', () => {
  it('re-queues a note when its content changes after the recorded version, not on a bare touch', async () => {
    const dream = manualDream(t.engine);
    await t.engine.wiki.appendNote('postgres vacuum settings', Date.UTC(2026, 3, 29, 8));
    const names = () => pendingNotes(t.engine.db, t.engine.wiki).map((n) => n.name);
    expect(names()).toEqual(['2026-04-29.md']);
    expect(await dream.run({ drain: true })).toMatchObject({ notesProcessed: 1, remaining: 0 });
    expect(names()).toEqual([]);

    const row = t.engine.db.prepare('SELECT * FROM dream_notes_log').get() as {
      source_mtime: number;
      content_hash: string;
    };
    expect(row.source_mtime).toBeGreaterThan(0);
    expect(row.content_hash).toMatch(/^[0-9a-f]{64}$/);

    const file = path.join(t.engine.paths.wiki, 'notes', '2026-04-29.md');
    const later = new Date(Date.now() + 60_000);
    utimesSync(file, later, later);
    expect(names()).toEqual([]);

    await t.engine.wiki.appendNote('and autovacuum thresholds', Date.UTC(2026, 3, 29, 9));
    expect(names()).toEqual(['2026-04-29.md']);
    expect(await dream.run({ drain: true })).toMatchObject({ notesProcessed: 1 });
    expect(names()).toEqual([]);

    // A person editing the file by hand counts too.
    appendFileSync(file, '\n## 10:00 UTC\n\nedited in an editor\n');
    expect(names()).toEqual(['2026-04-29.md']);
    writeFileSync(path.join(t.engine.paths.wiki, 'notes', '2026-04-30.md'), '## 08:00 UTC\n\nnew day\n');
    expect(names()).toEqual(['2026-04-29.md', '2026-04-30.md']);
  });
});

describe('Dream admission', () => {
  it('with a backlog of 50 sessions and 1 note, a scheduled run still admits the note', async () => {
    for (let i = 0; i < 50; i++) await sessionWith(t, { facts: [{ text: `decision number ${i}` }] });
    await t.engine.wiki.appendNote('remember the note');
    const dream = manualDream(t.engine, { dream: { maxSourcesPerRun: 1 } });
    const first = await dream.run({ drain: false });
    expect(first).toMatchObject({
      status: 'completed',
      sessionsProcessed: 1,
      notesProcessed: 1,
      remaining: 49,
      failed: 0,
    });

    const wide = manualDream(t.engine, { dream: { maxSourcesPerRun: 20 } });
    await t.engine.wiki.appendNote('a second entry');
    const second = await wide.run({ drain: false });
    expect(second).toMatchObject({ sessionsProcessed: 19, notesProcessed: 1, remaining: 30 });
    const drained = await wide.run({ drain: true });
    expect(drained).toMatchObject({ sessionsProcessed: 30, notesProcessed: 0, remaining: 0 });
  });

  it('bounds a run by input characters but always admits one of each kind', async () => {
    const big = 'x'.repeat(3000);
    for (let i = 0; i < 5; i++) await sessionWith(t, { messages: [big, big] });
    await t.engine.wiki.appendNote('small note');
    const dream = manualDream(t.engine, { dream: { maxSourcesPerRun: 20, maxInputChars: 5000 } });
    const r = await dream.run({ drain: false });
    expect(r).toMatchObject({ sessionsProcessed: 1, notesProcessed: 1, remaining: 4 });
  });

  it('oldest sessions go first', async () => {
    const a = await sessionWith(t);
    const b = await sessionWith(t);
    expect(pendingIds()).toEqual([a.session.id, b.session.id]);
    const dream = manualDream(t.engine, { dream: { maxSourcesPerRun: 1 } });
    await dream.run({ drain: false });
    expect(pendingIds()).toEqual([b.session.id]);
  });
});
