import { statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { RecallIndexMaintenance } from '../../src/main/memory/recall/index-maintenance';
import { indexPages, mergeStep, pendingPurges, purgeStep } from '../../src/main/store/recall-index';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine();
});
afterEach(async () => {
  await t.close();
});

const segments = () =>
  (t.engine.db.prepare('SELECT count(*) AS n FROM memory_facts_fts_data').get() as { n: number }).n;

/** A session and `n` facts written one transaction each: the index is left as many small segments. */
async function smallWrites(n: number) {
  const s = await t.run('sessions.create', { projectId: 'alpha' });
  for (let i = 0; i < n; i++) {
    await t.run('facts.add', { sessionId: s.id, text: `cluster node ${i} runs the ingest pipeline`, scope: 'project' });
  }
  return s;
}

describe('recall index maintenance', () => {
  it('merges the segments left by many small writes and keeps every fact findable', async () => {
    const s = await smallWrites(120);
    const before = segments();
    await new RecallIndexMaintenance(t.engine).runAll();
    expect(segments()).toBeLessThan(before);
    expect(mergeStep(t.engine.db, 'memory_facts_fts')).toBe(false);
    t.engine.db.exec("INSERT INTO memory_facts_fts(memory_facts_fts) VALUES('integrity-check')");
    const r = await t.run('memory.search', {
      sessionId: s.id,
      query: 'ingest pipeline node 77',
      sources: ['facts'],
      limit: 1,
    });
    expect(r.results[0]!.snippet).toBe('cluster node 77 runs the ingest pipeline');
  });

  it('bounds the WAL: cut back after checkpoints while writing, truncated once writes go quiet', async () => {
    const db = t.engine.db;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const limit = db.pragma('journal_size_limit', { simple: true }) as number;
    const checkpointPages = db.pragma('wal_autocheckpoint', { simple: true }) as number;
    expect(limit).toBeGreaterThan(0);
    expect(limit).toBeLessThanOrEqual(checkpointPages * pageSize);
    expect(limit).toBeLessThan(16 * 2 ** 20);
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    for (let b = 0; b < 3; b++) {
      const facts = Array.from({ length: 1000 }, (_, i) => ({
        text: `batch ${b} fact ${i} about the ingest pipeline and its shard ${i * 7 + b}`,
        scope: 'project' as const,
      }));
      await t.run('facts.addBatch', { sessionId: s.id, facts });
    }
    const wal = () => statSync(`${t.engine.paths.db}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    expect(wal()).toBeGreaterThan(0);
    await new RecallIndexMaintenance(t.engine).runAll();
    expect(wal()).toBe(0);
  });

  it('keeps the fact index and scope counts in step with inserts, edits and deletes; id and seq cannot be edited', async () => {
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    const f = await t.run('facts.add', { sessionId: s.id, text: 'blue green deploys on fridays', scope: 'project' });
    const db = t.engine.db;
    const counts = () =>
      db.prepare("SELECT facts FROM memory_scopes WHERE scope = 'project' AND scope_key = 'alpha'").get();
    const find = async (q: string) =>
      (await t.run('memory.search', { sessionId: s.id, query: q, sources: ['facts'] })).results.length;
    expect(counts()).toEqual({ facts: 1 });
    expect(await find('blue green fridays')).toBe(1);
    // Public id and seq (the evidence and index key) never change.
    expect(() => db.prepare("UPDATE memory_fact_rows SET id = 'other' WHERE id = ?").run(f.fact.id)).toThrow(
      /immutable/,
    );
    expect(() => db.prepare('UPDATE memory_fact_rows SET seq = seq + 1000 WHERE id = ?').run(f.fact.id)).toThrow(
      /immutable/,
    );
    // An edit through the store rewrites the index row: old words gone, new words found.
    await t.run('facts.update', { factId: f.fact.id, text: 'canary deploys on mondays' });
    expect(await find('blue green fridays')).toBe(0);
    expect(await find('canary mondays')).toBe(1);
    db.exec("INSERT INTO memory_facts_fts(memory_facts_fts) VALUES('integrity-check')");
    expect(counts()).toEqual({ facts: 1 });
    const indexed = () =>
      db
        .prepare(`SELECT count(*) AS n FROM memory_facts_fts WHERE memory_facts_fts MATCH '"monday"* OR "friday"*'`)
        .get();
    expect(indexed()).toEqual({ n: 1 });
    db.prepare('DELETE FROM memory_fact_rows WHERE id = ?').run(f.fact.id);
    expect(counts()).toBeUndefined();
    expect(await find('canary mondays')).toBe(0);
    expect(pendingPurges(db)).toBe(1);
    while (purgeStep(db, 10));
    expect(indexed()).toEqual({ n: 0 });
    db.exec("INSERT INTO memory_facts_fts(memory_facts_fts) VALUES('integrity-check')");
  });
});

describe('how much index maintenance rewrites', () => {
  it('merges a large index whole once, then again only after it grew by a tenth (in any process); a small one every time', async () => {
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    const facts = Array.from({ length: 3000 }, (_, i) => ({
      text: `fact ${i} about shard${i % 97} of cluster${i % 31} and its owner${i}`,
      scope: 'project' as const,
    }));
    for (let at = 0; at < facts.length; at += 1000) {
      await t.run('facts.addBatch', { sessionId: s.id, facts: facts.slice(at, at + 1000) });
    }
    const large = new RecallIndexMaintenance(t.engine, 4); // anything over 4 pages counts as large here
    await large.runAll();
    expect(mergeStep(t.engine.db, 'memory_facts_fts')).toBe(false);
    const merged = indexPages(t.engine.db, 'memory_facts_fts');
    expect(merged).toBeGreaterThan(4);
    const add = (text: string) => t.run('facts.add', { sessionId: s.id, text, scope: 'project' });

    await add('a zebra and a quokka run the ingest pipeline');
    const unmerged = segments();
    await large.runAll();
    expect(segments()).toBe(unmerged); // one row is not worth rewriting the index for
    // Nor for another process (an agent client starts one per session): the merged size is stored.
    await new RecallIndexMaintenance(t.engine, 4).runAll();
    expect(segments()).toBe(unmerged);
    await expect(
      t.run('memory.search', { sessionId: s.id, query: 'zebra quokka', sources: ['facts'] }),
    ).resolves.toMatchObject({ results: [{ snippet: 'a zebra and a quokka run the ingest pipeline' }] });

    for (let i = 0; indexPages(t.engine.db, 'memory_facts_fts') < merged * 1.1; i++) {
      await add(`growth fact ${i} with words of its own: alpha${i} beta${i} gamma${i}`);
    }
    await large.runAll();
    expect(mergeStep(t.engine.db, 'memory_facts_fts')).toBe(false); // grown by a tenth: merged whole

    await add('and one more after that');
    const before = segments();
    await new RecallIndexMaintenance(t.engine).runAll(); // a small index (the default limit) every time
    expect(segments()).toBeLessThan(before);
  });
});

describe('what schedules index maintenance', () => {
  it('every write of messages, not only a completed response: begin_turn alone grows the dialogue index', async () => {
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    const schedule = vi.spyOn(RecallIndexMaintenance.prototype, 'schedule');
    try {
      await t.run('turns.begin', { sessionId: s.id, userText: 'which shard runs the ingest pipeline?' });
      expect(schedule).toHaveBeenCalledTimes(1);
      await t.run('messages.add', { sessionId: s.id, role: 'tool', content: 'shard 7' });
      expect(schedule).toHaveBeenCalledTimes(2);
      await t.run('turns.complete', { sessionId: s.id, assistantText: 'Shard 7 runs it.' });
      // The completed response schedules it too (the same pass: the timer is reset, not doubled).
      expect(schedule.mock.calls.length).toBeGreaterThanOrEqual(3);
      const dialogueSegments = () =>
        (t.engine.db.prepare('SELECT count(*) AS n FROM session_messages_fts_data').get() as { n: number }).n;
      for (let i = 0; i < 40; i++)
        await t.run('turns.begin', { sessionId: s.id, userText: `question ${i} about shards?` });
      const before = dialogueSegments();
      await new RecallIndexMaintenance(t.engine).runAll();
      expect(dialogueSegments()).toBeLessThan(before);
    } finally {
      schedule.mockRestore();
    }
  });
});

describe('index maintenance and requests', () => {
  it('waits for a moment with no request in flight before each step, then merges', async () => {
    await smallWrites(30);
    const before = segments();
    t.engine.requests.enter(); // a request the doors are still serving
    let finished = false;
    const pass = new RecallIndexMaintenance(t.engine).runAll().then(() => (finished = true));
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(finished).toBe(false);
    expect(segments()).toBe(before);
    t.engine.requests.leave();
    await pass;
    expect(segments()).toBeLessThan(before);
  });

  it('dispatch holds the gate for the whole request, including its wait for the read lane', async () => {
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    expect(t.engine.requests.inFlight).toBe(0);
    const search = t.run('memory.search', { sessionId: s.id, query: 'ingest pipeline node' });
    expect(t.engine.requests.inFlight).toBe(1);
    await search;
    expect(t.engine.requests.inFlight).toBe(0);
    await expect(t.run('memory.search', { sessionId: 'missing', query: 'ingest pipeline' })).rejects.toThrow();
    expect(t.engine.requests.inFlight).toBe(0);
  });
});
