/**
 * Dream over 1,000 pending sessions with 20 facts each (10 projects, 20 hand-written entity
 * pages to merge into). Prints the time per scheduled (bounded) run, pages written per run,
 * and a full drain on a second identical home.
 *   npm run bench -- dream
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEngine, type Engine } from '../../src/main/engine';
import { ManualClock } from '../../src/shared/clock';
import { writeTx } from '../../src/main/store/db';
import { insertSession } from '../../src/main/store/sessions';
import { appendMessage } from '../../src/main/store/messages';
import { recordFact } from '../../src/main/store/facts';
import { newId } from '../../src/shared/ids';
import { FACT_KINDS } from '../../src/shared/domain';
import { countPendingSessions } from '../../src/main/dream/queue';
import { runBench } from './bench-main';

const SESSIONS = Number(process.env.DREAM_BENCH_SESSIONS ?? 1000);
const FACTS = 20;
const ENTITIES = [
  'postgres',
  'redis',
  'docker',
  'kubernetes',
  'terraform',
  'sqlite',
  'react',
  'electron',
  'vitest',
  'nginx',
  'grafana',
  'kafka',
  'python',
  'rust',
  'golang',
  'typescript',
  'webpack',
  'vite',
  'github-actions',
  'sentry',
];

async function seed(engine: Engine): Promise<void> {
  for (const e of ENTITIES) {
    await engine.wiki.write(
      `entities/${e}.md`,
      `---\ndescription: ${e} notes\nupdated: 2026-01-01\n---\n# ${e}\n\nHand-written.\n`,
    );
  }
  let now = Date.UTC(2026, 0, 1);
  const kinds = FACT_KINDS.filter((k) => k !== 'preference' && k !== 'profile');
  for (let chunk = 0; chunk < SESSIONS; chunk += 100) {
    writeTx(engine.db, () => {
      for (let i = chunk; i < Math.min(SESSIONS, chunk + 100); i++) {
        const id = newId();
        const projectId = `project-${i % 10}`;
        insertSession(engine.db, {
          id,
          kind: 'top-level',
          parentSessionId: null,
          projectId,
          workspace: null,
          folderId: null,
          agentName: null,
          title: `Working session ${i}`,
          createdAt: now,
          updatedAt: now,
        });
        const m = appendMessage(
          engine.db,
          { id: newId(), sessionId: id, role: 'user', content: `Please help with task ${i}. `.repeat(30) },
          ++now,
        );
        appendMessage(
          engine.db,
          { id: newId(), sessionId: id, role: 'assistant', content: `Done with task ${i}. `.repeat(30) },
          ++now,
        );
        for (let f = 0; f < FACTS; f++) {
          const n = i * FACTS + f;
          const mention = n % 4 === 0 ? ` with ${ENTITIES[n % ENTITIES.length]}` : '';
          recordFact(
            engine.db,
            {
              text: `Rule ${n % 3000} for component ${n % 211}${mention}`,
              kind: kinds[n % kinds.length]!,
              confidence: 'medium',
              origin: 'manual',
              target: { scope: n % 10 === 0 ? 'user' : 'project', key: n % 10 === 0 ? '' : projectId } as never,
              sessionId: id,
              messageId: m.id,
            },
            now,
          );
        }
      }
    });
  }
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))]!;

async function main() {
  const dirs: string[] = [];
  const home = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'evoflux-dream-bench-'));
    dirs.push(d);
    return d;
  };
  try {
    const engine = openEngine({ home: home(), clock: new ManualClock(Date.UTC(2026, 0, 2)) });
    let t0 = performance.now();
    await seed(engine);
    console.log(`seeded ${SESSIONS} sessions x ${FACTS} facts in ${(performance.now() - t0).toFixed(0)} ms`);
    t0 = performance.now();
    const pending = countPendingSessions(engine.db);
    console.log(`pending-session query: ${pending} pending in ${(performance.now() - t0).toFixed(1)} ms`);

    const times: number[] = [];
    const pages: number[] = [];
    let processed = 0;
    t0 = performance.now();
    for (;;) {
      const s = performance.now();
      const r = await engine.dream.run({ drain: false });
      if (r.sessionsProcessed + r.notesProcessed === 0) break;
      times.push(performance.now() - s);
      pages.push(r.pagesWritten);
      processed += r.sessionsProcessed;
    }
    const total = performance.now() - t0;
    console.log(
      `scheduled runs (maxSourcesPerRun=${engine.settings.dream.maxSourcesPerRun}): ${times.length} runs, ${processed} sessions, ` +
        `total ${(total / 1000).toFixed(1)} s; per run p50 ${pct(times, 0.5).toFixed(0)} ms, p95 ${pct(times, 0.95).toFixed(0)} ms, ` +
        `max ${Math.max(...times).toFixed(0)} ms; pages written per run p50 ${pct(pages, 0.5)}, max ${Math.max(...pages)}`,
    );
    console.log(
      `wiki: ${engine.wiki.listSection('sources').length} source pages, ${engine.wiki.listSection('topics').length} topic pages, ${engine.wiki.listSection('entities').length} entity pages`,
    );
    await engine.close();

    const drainEngine = openEngine({ home: home(), clock: new ManualClock(Date.UTC(2026, 0, 2)) });
    await seed(drainEngine);
    t0 = performance.now();
    const r = await drainEngine.dream.run({ drain: true });
    const ms = performance.now() - t0;
    console.log(
      `drain run: ${r.sessionsProcessed} sessions in ${(ms / 1000).toFixed(1)} s (${(ms / r.sessionsProcessed).toFixed(1)} ms/session), ` +
        `${r.pagesWritten} pages written, remaining ${r.remaining}, failed ${r.failed}`,
    );
    await drainEngine.close();
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

runBench(main);
