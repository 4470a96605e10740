import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../src/main/store/migrate';
import { migrations } from '../../src/main/store/migrations';
import { insertSession } from '../../src/main/store/sessions';
import { appendMessage } from '../../src/main/store/messages';
import { writeOldFact } from '../helpers/old-store';
import { escapeForBoundary, RECALL_BLOCK_CLOSE, RECALL_BLOCK_OPEN } from '../../src/main/memory/recall/block';
import { testResources } from '../helpers/home';

const LINKS_MIGRATION = migrations.find((m) => m.name === 'recall-row-facts')!.version;

/** Recall blocks persisted before recall-row-facts are linked to their facts on upgrade, so forget finds them. */
describe('upgrading to the recall-row-facts migration', () => {
  const resources = testResources();
  afterEach(() => resources.release());

  it('links every existing recall block to the facts in its records', async () => {
    const home = resources.home();
    const file = path.join(home, 'memory.db');
    // A store written by the version before: its schema, a fact, and a turn whose recall block holds it.
    const db = new Database(file);
    migrate(
      db,
      migrations.filter((m) => m.version < LINKS_MIGRATION),
    );
    const now = Date.UTC(2026, 0, 1);
    const session = {
      id: 's1',
      kind: 'top-level' as const,
      parentSessionId: null,
      projectId: 'p',
      workspace: null,
      folderId: null,
      agentName: null,
      title: null,
      createdAt: now,
      updatedAt: now,
    };
    insertSession(db, session);
    const fact = { id: '01900000-0000-7000-8000-00000000f001', text: 'Zorbling uses tabs' };
    writeOldFact(db, { ...fact, kind: 'fact', scope: 'project', key: 'p', sessionId: 's1', now });
    const record = escapeForBoundary(JSON.stringify({ id: fact.id, text: fact.text, kind: 'fact', scope: 'project' }));
    const block = [RECALL_BLOCK_OPEN, record, RECALL_BLOCK_CLOSE].join('\n');
    const row = appendMessage(
      db,
      { id: 'm1', sessionId: 's1', role: 'user', content: block, hidden: true, systemGenerated: true },
      now,
    );
    db.prepare("UPDATE session_messages SET model_context = 'memory_recall' WHERE id = ?").run(row.id);

    expect(migrate(db, migrations)).toContain(LINKS_MIGRATION);
    expect(db.prepare('SELECT count(*) AS n FROM recall_row_facts').get()).toEqual({ n: 1 });
    db.close();
    const t = resources.engine({ home });
    await t.run('facts.delete', { factId: fact.id });
    const rows = t.engine.db
      .prepare("SELECT content FROM session_messages WHERE model_context = 'memory_recall'")
      .all() as { content: string }[];
    expect(rows).toEqual([]);
  });
});
