import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../src/main/store/migrate';
import { migrations } from '../../src/main/store/migrations';
import { openTestEngine, testResources } from '../helpers/home';

/** Recall blocks persisted before migration 053 are linked to their facts on upgrade, so forget finds them. */
describe('upgrading to migration 053', () => {
  const resources = testResources();
  afterEach(() => resources.release());

  it('links every existing recall block to the facts in its records', async () => {
    const home = resources.home();
    // A store written by the previous version: a turn whose recall block holds one fact.
    const seed = openTestEngine({ home });
    const s = await seed.run('sessions.create', { projectId: 'p' });
    const fact = await seed.run('facts.add', { sessionId: s.id, scope: 'project', text: 'Zorbling uses tabs' });
    await seed.run('turns.begin', { sessionId: s.id, userText: 'does zorbling use tabs?' });
    await seed.engine.close();
    const file = path.join(home, 'memory.db');
    const raw = new Database(file);
    raw.exec('DROP TABLE recall_row_facts; DELETE FROM schema_migrations WHERE version = 53');
    raw.close();

    const db = new Database(file);
    expect(migrate(db, migrations)).toEqual([53]);
    expect(db.prepare('SELECT count(*) AS n FROM recall_row_facts').get()).toEqual({ n: 1 });
    db.close();
    const t = resources.engine({ home });
    await t.run('facts.delete', { factId: fact.fact.id });
    const rows = t.engine.db
      .prepare("SELECT content FROM session_messages WHERE model_context = 'memory_recall'")
      .all() as { content: string }[];
    expect(rows).toEqual([]);
  });
});
