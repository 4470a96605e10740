import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { pendingPurges, purgeStep } from '../../src/main/store/recall-index';

/** Forget queues the fact-index deletes; the fact is unfindable at once and the tokens go right after. */
describe('deferred purge of forgotten facts from the recall index', () => {
  let t: TestEngine;
  beforeEach(() => (t = openTestEngine()));
  afterEach(() => t.close());

  const search = async (sessionId: string, query: string) =>
    (await t.run('memory.search', { sessionId, query, sources: ['facts'] })).results.map((r) => r.snippet);

  it('is unfindable on commit, purged by maintenance, and never lends a queued rowid to a new fact', async () => {
    const alpha = await t.run('sessions.create', { projectId: 'alpha' });
    const beta = await t.run('sessions.create', { projectId: 'beta' });
    const doomed = await t.run('sessions.create', { projectId: 'alpha' });
    for (let i = 0; i < 30; i++) {
      await t.run('facts.add', { sessionId: doomed.id, scope: 'project', text: `Zebra gateway rule number ${i}` });
    }
    expect(await search(alpha.id, 'zebra gateway rule')).not.toEqual([]);
    const db = t.engine.db;
    const rowidsBefore = (db.prepare('SELECT seq FROM memory_facts').all() as { seq: number }[]).map((r) => r.seq);
    const zebraRows = () =>
      db.prepare('SELECT count(*) AS n FROM memory_facts_fts WHERE memory_facts_fts MATCH \'"zebra_"*\'').get();
    expect(zebraRows()).toEqual({ n: 30 });

    await t.run('sessions.delete', { sessionId: doomed.id });
    expect(await search(alpha.id, 'zebra gateway rule')).toEqual([]);
    expect(pendingPurges(db)).toBe(30);

    // A fact written while purges are queued gets a fresh rowid, so no stale token can name it.
    await t.run('facts.add', { sessionId: beta.id, scope: 'project', text: 'Beta uses the quokka scheduler' });
    const fresh = db.prepare('SELECT seq FROM memory_facts').all() as { seq: number }[];
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.seq).toBeGreaterThan(Math.max(...rowidsBefore));
    expect(await search(beta.id, 'zebra gateway rule')).toEqual([]);
    expect(await search(beta.id, 'quokka scheduler')).toEqual(['Beta uses the quokka scheduler']);

    while (purgeStep(db, 7));
    expect(pendingPurges(db)).toBe(0);
    expect(zebraRows()).toEqual({ n: 0 });
    db.exec("INSERT INTO memory_facts_fts(memory_facts_fts) VALUES('integrity-check')");
  });

  it('a maintenance pass purges whatever a forget left queued', async () => {
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    const f = await t.run('facts.add', { sessionId: s.id, scope: 'project', text: 'Walrus cache is warm' });
    await t.run('facts.delete', { factId: f.fact.id });
    expect(pendingPurges(t.engine.db)).toBe(1);
    const maintenance = await import('../../src/main/memory/recall/index-maintenance');
    const m = new maintenance.RecallIndexMaintenance(t.engine);
    await m.runAll();
    expect(pendingPurges(t.engine.db)).toBe(0);
    await m.stop();
  });
});
