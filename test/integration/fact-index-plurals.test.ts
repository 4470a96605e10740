import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestEngine, testResources, type TestEngine } from '../helpers/home';

/** A plural in -es is found by its singular and the other way round, in new and in upgraded stores. */
describe('plurals in -es in the fact index', () => {
  const res = testResources();
  afterEach(() => res.release());
  const recalled = async (t: TestEngine, sessionId: string, text: string) =>
    (await t.run('memory.recall', { sessionId, text })).facts.map((f) => f.text);

  it('recalls "classes" for "class" and "match" for "matches"', async () => {
    const t = res.engine();
    const writer = await t.run('sessions.create', { projectId: 'app' });
    await t.run('facts.add', {
      sessionId: writer.id,
      text: "We don't use classes in this codebase.",
      scope: 'project',
    });
    await t.run('facts.add', {
      sessionId: writer.id,
      text: 'Route match order follows the file tree.',
      scope: 'project',
    });
    const asker = await t.run('sessions.create', { projectId: 'app' });
    expect(await recalled(t, asker.id, 'Can I add a class to this codebase?')).toEqual([
      "We don't use classes in this codebase.",
    ]);
    expect(await recalled(t, asker.id, 'Which route matches first?')).toEqual([
      'Route match order follows the file tree.',
    ]);
  });

  it('rebuilds an index written with the old folding when the store is upgraded', async () => {
    const home = res.home();
    const first = openTestEngine({ home });
    const writer = await first.run('sessions.create', { projectId: 'app' });
    await first.run('facts.add', { sessionId: writer.id, text: 'Parser classes stay small.', scope: 'project' });
    await first.engine.close();
    // The row as the folding before migration 106 wrote it ("classes" -> "classe"), and the store
    // put back to version 105.
    const raw = new Database(path.join(home, 'memory.db'));
    const { seq, scope } = raw.prepare('SELECT seq, scope_id AS scope FROM memory_fact_rows').get() as {
      seq: number;
      scope: number;
    };
    const suffix = `_${scope.toString(36)}`;
    raw.prepare('DELETE FROM memory_facts_fts WHERE rowid = ?').run(seq);
    raw
      .prepare('INSERT INTO memory_facts_fts (rowid, terms) VALUES (?, ?)')
      .run(seq, ['parser', 'classe', 'stay', 'small'].map((w) => w + suffix).join(' '));
    raw.prepare('DELETE FROM schema_migrations WHERE version = 106').run();
    raw.close();

    const upgraded = res.engine({ home });
    const asker = await upgraded.run('sessions.create', { projectId: 'app' });
    expect(await recalled(upgraded, asker.id, 'How big is a parser class?')).toEqual(['Parser classes stay small.']);
  });
});
