/**
 * Store benchmark: 100k fact upserts with evidence (target < 5 s), re-observing them from a
 * second session (reinforcement path), and forgetting a session that supports 10k facts
 * (target < 200 ms), then the clean-up index maintenance does after it. Prints figures; asserts
 * nothing.
 */
import { performance } from 'node:perf_hooks';
import { openTestEngine } from '../helpers/home';
import { passiveCheckpoint, truncateWal, writeTx } from '../../src/main/store/db';
import { purgeStep } from '../../src/main/store/recall-index';
import { recordFacts, type Observation } from '../../src/main/store/facts';
import { coerceScope, resolveScopes } from '../../src/main/memory/scope';
import { forgetSession } from '../../src/main/memory/forget';
import { FACT_KINDS } from '../../src/shared/domain';
import { plainUpserts } from './store/baseline';
import { runBench } from './bench-main';

const BATCH = Number(process.env.BENCH_BATCH ?? 1000);

async function main() {
  const t = openTestEngine();
  const db = t.engine.db;
  const sessions: string[] = [];
  for (let i = 0; i < 100; i++) sessions.push((await t.run('sessions.create', { projectId: `p${i % 10}` })).id);
  const scopeCache = new Map(sessions.map((id) => [id, resolveScopes(db, id)]));

  const factText = (i: number) => `Fact ${i}: the service on port ${3000 + (i % 500)} uses config variant ${i % 97}`;
  // Through recordFacts, as the product's bulk writes go (facts.addBatch, extraction, legacy import).
  const upsert = (n: number, sessionFor: (i: number) => string, offset = 0) => {
    for (let start = 0; start < n; start += BATCH) {
      writeTx(db, () => {
        const observations: Observation[] = [];
        for (let i = start; i < Math.min(n, start + BATCH); i++) {
          const sessionId = sessionFor(i);
          const kind = FACT_KINDS[i % FACT_KINDS.length]!;
          observations.push({
            text: factText(i + offset),
            kind,
            confidence: 'medium',
            origin: 'extraction',
            target: coerceScope(scopeCache.get(sessionId)!, i % 3 === 0 ? 'session' : 'project', kind),
            sessionId,
            messageId: null,
          });
        }
        recordFacts(db, observations, t.clock.now());
      });
    }
  };

  const plainBefore = plainUpserts(t.home, factText, 100_000, BATCH);
  let t0 = performance.now();
  const c0 = process.cpuUsage();
  upsert(100_000, (i) => sessions[i % sessions.length]!);
  const insertMs = performance.now() - t0;
  const insertCpu = process.cpuUsage(c0);
  const plainAfter = plainUpserts(t.home, factText, 100_000, BATCH);
  console.log(
    `CPU ${((insertCpu.user + insertCpu.system) / 1000).toFixed(0)} ms (user ${(insertCpu.user / 1000).toFixed(0)}, sys ${(insertCpu.system / 1000).toFixed(0)})`,
  );
  console.log(
    `upsert 100k new facts with evidence:  ${insertMs.toFixed(0)} ms  (${((100_000 / insertMs) * 1000).toFixed(0)}/s, target < 5000 ms)`,
  );
  const plainMs = (plainBefore + plainAfter) / 2;
  console.log(
    `baseline, plain SQLite rows (id, dedup key, FTS5, evidence): ${plainBefore.toFixed(0)} ms before, ${plainAfter.toFixed(0)} ms after; the store ${(insertMs / plainMs).toFixed(2)}x their mean`,
  );

  t0 = performance.now();
  upsert(100_000, (i) => sessions[i % sessions.length]!);
  const sameMs = performance.now() - t0;
  console.log(`re-upsert 100k, same evidence:        ${sameMs.toFixed(0)} ms  (no change, no reinforcement)`);

  // A dedicated session supporting 10k facts: 8k only it supports, 2k shared with another session.
  const victim = (await t.run('sessions.create', { projectId: 'p0' })).id;
  const witness = (await t.run('sessions.create', { projectId: 'p0' })).id;
  scopeCache.set(victim, resolveScopes(db, victim));
  scopeCache.set(witness, resolveScopes(db, witness));
  upsert(10_000, () => victim, 1_000_000);
  upsert(2_000, () => witness, 1_000_000);

  // A forget comes from a person, not in the same tick as a bulk load: by then the engine has copied
  // the load's WAL back between requests (wal-checkpoints.ts). Without this, the forget's commit may
  // set off SQLite's own checkpoint (at ~12 MB of WAL) and copy what the load wrote.
  t0 = performance.now();
  const copied = passiveCheckpoint(db);
  console.log(
    `WAL checkpoint before the forget:     ${(performance.now() - t0).toFixed(0)} ms  (${copied.copiedFrames} pages, as the engine runs between requests)`,
  );

  t0 = performance.now();
  const dry = forgetSession(db, victim, { dryRun: true });
  const dryMs = performance.now() - t0;
  t0 = performance.now();
  const r = forgetSession(db, victim, { dryRun: false });
  const forgetMs = performance.now() - t0;
  console.log(`forget dry run (10k evidence rows):   ${dryMs.toFixed(0)} ms`);
  console.log(
    `forget session with 10k evidence:     ${forgetMs.toFixed(0)} ms  (deleted ${r.deleted.length}, kept ${r.kept.length}, target < 200 ms)`,
  );
  if (dry.deleted.length !== r.deleted.length) console.log('MISMATCH between dry run and forget');

  // What index maintenance does a few seconds later, outside the forget's transaction.
  t0 = performance.now();
  let steps = 0;
  while (purgeStep(db)) steps++;
  const purgeMs = performance.now() - t0;
  t0 = performance.now();
  const truncated = truncateWal(db);
  console.log(
    `after forget: index purge ${purgeMs.toFixed(0)} ms in ${steps} transactions, WAL checkpoint + truncate ${(performance.now() - t0).toFixed(0)} ms${truncated ? '' : ' (busy)'}`,
  );
  await t.close();
}

runBench(main, { exit: true });
