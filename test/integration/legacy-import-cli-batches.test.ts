import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { testResources } from '../helpers/home';
import { writeTx } from '../../src/main/store/db';
import { insertSession } from '../../src/main/store/sessions';
import { newId } from '../../src/shared/ids';
import { SENTINEL_FILE } from '../../src/main/memory/legacy-import';
import { writeLegacyNotes } from '../fixtures/legacy-notes';

const res = testResources();
afterEach(() => res.release());

const SESSIONS = 150;
const UNIQUE = 4;

function importedSessions(home: string): number {
  const db = new Database(path.join(home, 'memory.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM legacy_import_sessions').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('the startup legacy import under short CLI commands', () => {
  it('each command imports a bounded batch after its own output, until the import is done', async () => {
    const home = res.home();
    const t = res.engine({ home });
    const ids = Array.from({ length: SESSIONS }, () => newId());
    writeTx(t.engine.db, () =>
      ids.forEach((id, i) =>
        insertSession(t.engine.db, {
          id,
          kind: 'top-level',
          parentSessionId: null,
          projectId: `p${i % 3}`,
          workspace: null,
          folderId: null,
          agentName: null,
          title: `s${i}`,
          createdAt: t.clock.now(),
          updatedAt: t.clock.now(),
        }),
      ),
    );
    await t.engine.close();
    writeLegacyNotes(path.join(home, 'wiki', 'notes'), ids, { unique: UNIQUE, shared: 1, files: 5 });

    const progress: number[] = [];
    // Every run imports at least one session, so this ends after at most SESSIONS runs.
    for (let run = 0; run < SESSIONS && !existsSync(path.join(home, SENTINEL_FILE)); run++) {
      const r = runCli(['sessions', 'list', '--limit', '1', '--json', '--home', home]);
      expect(r.status, r.stderr).toBe(0);
      // The command's own answer is complete and first; the import ran after it.
      expect(r.json().sessions).toHaveLength(1);
      progress.push(importedSessions(home));
      expect(progress.at(-1)!).toBeGreaterThan(progress.at(-2) ?? 0);
    }
    expect(existsSync(path.join(home, SENTINEL_FILE))).toBe(true);
    expect(progress.at(-1)).toBe(SESSIONS);
    // Bounded: no single command imported everything at once.
    expect(progress[0]).toBeLessThanOrEqual(100);

    const check = res.engine({ home });
    const facts = (
      check.engine.db.prepare("SELECT count(*) AS n FROM memory_facts WHERE origin = 'legacy_note'").get() as {
        n: number;
      }
    ).n;
    expect(facts).toBe(SESSIONS * UNIQUE + 3); // one shared bullet per project
    const evidence = check.engine.db
      .prepare("SELECT count(*) AS n, count(DISTINCT fact_seq || ':' || session_id) AS d FROM memory_fact_evidence")
      .get() as { n: number; d: number };
    expect(evidence.n).toBe(evidence.d);
  });
});
