import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTestEngine, tempHome } from '../helpers/home';
import { ManualClock } from '../../src/shared/clock';
import { writeTx } from '../../src/main/store/db';
import { insertSession } from '../../src/main/store/sessions';
import { newId } from '../../src/shared/ids';
import { sentinelPath } from '../../src/main/memory/legacy-import';
import { writeLegacyNotes } from '../fixtures/legacy-notes';

const CHILD = path.resolve(__dirname, '../fixtures/legacy-import-child.ts');
const SESSIONS = 300;
const UNIQUE = 6;
const SHARED = 2;

describe('SIGKILL mid-import, then restart', () => {
  it('continues where it stopped, honours the sentinel and never reinforces evidence twice', async () => {
    const home = tempHome();
    try {
      const clock = new ManualClock();
      const setup = openTestEngine({ home: home.dir, clock });
      const ids = Array.from({ length: SESSIONS }, () => newId());
      writeTx(setup.engine.db, () => {
        ids.forEach((id, i) =>
          insertSession(setup.engine.db, {
            id,
            kind: 'top-level',
            parentSessionId: null,
            projectId: `p${i % 3}`,
            workspace: null,
            folderId: null,
            agentName: null,
            title: null,
            createdAt: clock.now(),
            updatedAt: clock.now(),
          }),
        );
      });
      await setup.engine.close();
      const notes = path.join(home.dir, 'old-notes');
      writeLegacyNotes(notes, ids, { unique: UNIQUE, shared: SHARED, files: 7 });

      // The child imports and reports each committed session; kill it a third of the way in.
      const child = spawn(process.execPath, ['--require', 'tsx/cjs', CHILD, home.dir, notes], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let seen = 0;
      let out = '';
      const killedAt = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d;
          const m = [...out.matchAll(/imported (\d+)/g)].pop();
          seen = m ? Number(m[1]) : 0;
          if (seen >= 100 && !child.killed) {
            child.kill('SIGKILL');
            resolve(seen);
          }
          if (out.includes('done ')) reject(new Error('the child finished before it could be killed'));
        });
      });
      await new Promise((resolve) => child.on('exit', resolve));
      expect(existsSync(sentinelPath({ root: home.dir } as never))).toBe(false);

      const t = openTestEngine({ home: home.dir, clock });
      try {
        const committed = (
          t.engine.db.prepare('SELECT count(*) AS n FROM legacy_import_sessions').get() as { n: number }
        ).n;
        expect(committed).toBeGreaterThanOrEqual(killedAt);
        expect(committed).toBeLessThan(SESSIONS);

        const report = await t.run('import.legacy', { from: notes });
        expect(report).toMatchObject({ skipped: false, interrupted: false, sessionsMissing: 0 });
        expect(report.sessionsAlreadyImported).toBe(committed);
        expect(report.sessions).toBe(SESSIONS - committed);
        expect(existsSync(sentinelPath(t.engine.paths))).toBe(true);

        // Exactly one evidence row per (fact, session) and reinforcement = supporting sessions.
        const evidence = (t.engine.db.prepare('SELECT count(*) AS n FROM memory_fact_evidence').get() as { n: number })
          .n;
        expect(evidence).toBe(SESSIONS * (UNIQUE + SHARED));
        const facts = (t.engine.db.prepare('SELECT count(*) AS n FROM memory_facts').get() as { n: number }).n;
        expect(facts).toBe(SESSIONS * UNIQUE + 3 * SHARED);
        const wrong = t.engine.db
          .prepare(
            `SELECT count(*) AS n FROM memory_facts f
             WHERE f.reinforcement != (SELECT count(*) FROM memory_fact_evidence e WHERE e.fact_seq = f.seq)`,
          )
          .get() as { n: number };
        expect(wrong.n).toBe(0);
        const shared = t.engine.db
          .prepare("SELECT reinforcement FROM memory_facts WHERE text LIKE 'The shared convention%'")
          .all() as { reinforcement: number }[];
        expect(shared.map((r) => r.reinforcement)).toEqual(Array(3 * SHARED).fill(SESSIONS / 3));

        // The sentinel is honoured on the next run (and on the next startup).
        expect(await t.run('import.legacy', { from: notes })).toMatchObject({ skipped: true });
      } finally {
        await t.engine.close();
      }
    } finally {
      home.cleanup();
    }
  });
});
