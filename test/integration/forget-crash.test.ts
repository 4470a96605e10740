import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTestEngine } from '../helpers/home';
import { openWriter } from '../../src/main/store/db';
import { writeTx } from '../../src/main/store/db';
import { recordFact } from '../../src/main/store/facts';
import { resolveScopes, coerceScope } from '../../src/main/memory/scope';

const CHILD = path.resolve(__dirname, '../fixtures/forget-child.ts');

function killWhenMid(dbFile: string, sessionId: string): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', CHILD, dbFile, sessionId], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), 170_000);
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('mid')) child.kill('SIGKILL');
      if (chunk.toString().includes('done')) reject(new Error('child finished before it could be killed'));
    });
    child.on('exit', (_code, signal) => {
      clearTimeout(guard);
      resolve(signal);
    });
  });
}

describe('forget survives SIGKILL mid-transaction', () => {
  it('leaves the database consistent and the next forget completes', async () => {
    const t = openTestEngine();
    const victim = await t.run('sessions.create', { projectId: 'p' });
    const keeper = await t.run('sessions.create', { projectId: 'p' });
    writeTx(t.engine.db, () => {
      const scopes = resolveScopes(t.engine.db, victim.id);
      const keeperScopes = resolveScopes(t.engine.db, keeper.id);
      for (let i = 0; i < 2000; i++) {
        const o = {
          text: `fact number ${i}`,
          kind: 'fact' as const,
          confidence: 'medium' as const,
          origin: 'manual' as const,
          messageId: null,
        };
        recordFact(t.engine.db, { ...o, target: coerceScope(scopes, 'project', 'fact'), sessionId: victim.id }, 1);
        if (i % 4 === 0)
          recordFact(
            t.engine.db,
            { ...o, target: coerceScope(keeperScopes, 'project', 'fact'), sessionId: keeper.id },
            1,
          );
      }
    });
    const dbFile = t.engine.paths.db;
    await t.engine.close();

    expect(await killWhenMid(dbFile, victim.id)).toBe('SIGKILL');

    const db = openWriter(dbFile);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);
    // Nothing of the interrupted forget is visible: the session and all its evidence are intact.
    expect(db.prepare('SELECT count(*) AS n FROM sessions WHERE id = ?').get(victim.id)).toEqual({ n: 1 });
    expect(db.prepare('SELECT count(*) AS n FROM memory_fact_evidence WHERE session_id = ?').get(victim.id)).toEqual({
      n: 2000,
    });
    expect(db.prepare('SELECT count(*) AS n FROM memory_facts').get()).toEqual({ n: 2000 });
    db.close();

    const again = openTestEngine({ home: t.home });
    const r = await again.run('sessions.delete', { sessionId: victim.id });
    expect(r.deleted).toHaveLength(1500);
    expect(r.kept).toHaveLength(500);
    const invariant = again.engine.db
      .prepare(
        `SELECT count(*) AS n FROM memory_facts f
         WHERE f.reinforcement != (SELECT count(*) FROM memory_fact_evidence e WHERE e.fact_seq = f.seq)`,
      )
      .get();
    expect(invariant).toEqual({ n: 0 });
    await again.close();
    await t.close(); // its engine is closed already; this removes the home
  });
});
