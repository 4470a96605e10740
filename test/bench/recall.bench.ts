/**
 * Recall and memory_search benchmark. Prints figures; asserts nothing.
 *
 *  - recall latency p50/p99 (main thread -> read-lane worker -> answer) at 10k, 100k and 1M
 *    facts spread over user, 2,000 projects, 2,000 workspaces, 1,000 folders and 20,000
 *    sessions; one data set grown in place;
 *  - main-thread event-loop lag p99 (monitorEventLoopDelay) during 1,000 concurrent recalls;
 *  - memory_search latency over 1M dialogue messages (dialogue only, and all sources).
 *
 * Data: fast bulk inserts through the real schema and triggers into a temp home. Text is drawn
 * from a 20,000-word Zipf vocabulary, so some query words are in most facts (the hard case for
 * an index) and others in a handful. `npm run bench -- recall` (RECALL_BENCH_MAX=100000 to stop
 * early). Each figure is printed as wall time and as CPU per call: on a busy machine the first
 * includes waiting for a core, the second does not.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { rmSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import path from 'node:path';
import { openWriter, type Db } from '../../src/main/store/db';
import { insertFactForSeeding } from '../../src/main/store/facts';
import type { Confidence, FactKind, Scope } from '../../src/shared/domain';
import { createReadLane } from '../../src/main/workers/read-lane';
import { normalizeWorkspacePath } from '../../src/main/memory/workspace-path';
import { mergeStep } from '../../src/main/store/recall-index';
import { FactSource } from './agent/data';
import { runBench } from './bench-main';

const SIZES = [10_000, 100_000, 1_000_000].filter((n) => n <= Number(process.env.RECALL_BENCH_MAX ?? 1_000_000));
const MESSAGES = Number(process.env.RECALL_BENCH_MESSAGES ?? 1_000_000);
const PROJECTS = 2000;
const WORKSPACES = 2000;
const FOLDERS = 1000;
const SESSIONS = 20_000;

// The agent bench's deterministic source (mulberry32 over a 20,000-word Zipf vocabulary, same
// seed), so runs are comparable.
const source = new FactSource();
const rnd = () => source.random();
const pick = (n: number) => source.pick(n);
const zipfWord = () => source.word();
const sentence = (min: number, max: number) => source.sentence(min, max);

const sessionId = (i: number) => `bench-session-${i}`;
const workspaceOf = (i: number) => normalizeWorkspacePath(`/tmp/evoflux-bench/ws-${i % WORKSPACES}`);

function seedSessions(db: Db): void {
  const insert = db.prepare(
    `INSERT INTO sessions (id, kind, parent_session_id, project_id, workspace, folder_id, title, created_at, updated_at)
     VALUES (?, 'top-level', NULL, ?, ?, ?, ?, 0, 0)`,
  );
  db.transaction(() => {
    for (let i = 0; i < SESSIONS; i++) {
      // A third of sessions have no project, so dialogue scoping falls back to workspace/folder.
      const project = i % 3 === 0 ? null : `project-${i % PROJECTS}`;
      insert.run(sessionId(i), project, workspaceOf(i), `folder-${i % FOLDERS}`, `bench session ${i}`);
    }
  })();
}

function scopeFor(): [Scope, string] {
  const r = rnd();
  if (r < 0.005) return ['user', ''];
  if (r < 0.355) return ['project', `project-${pick(PROJECTS)}`];
  if (r < 0.505) return ['workspace', workspaceOf(pick(WORKSPACES))];
  if (r < 0.605) return ['folder', `folder-${pick(FOLDERS)}`];
  return ['session', sessionId(pick(SESSIONS))];
}

function addFacts(db: Db, from: number, to: number): void {
  const kinds: FactKind[] = ['preference', 'decision', 'convention', 'constraint', 'fact'];
  const confidences: Confidence[] = ['low', 'medium', 'high'];
  for (let start = from; start < to; start += 50_000) {
    db.transaction(() => {
      for (let i = start; i < Math.min(to, start + 50_000); i++) {
        const [scope, key] = scopeFor();
        const kind = scope === 'user' ? 'preference' : kinds[pick(kinds.length)]!;
        insertFactForSeeding(db, {
          id: `fact-${i}`,
          scope,
          scopeKey: key,
          kind,
          text: sentence(6, 20),
          confidence: confidences[pick(3)]!,
          reinforcement: 1 + pick(5),
          origin: 'extraction',
          requestedScope: null,
          coercionReason: null,
          firstSeenAt: i,
          lastSeenAt: i,
          updatedAt: i,
        });
      }
    })();
  }
}

function addMessages(db: Db, count: number): void {
  const insert = db.prepare(
    `INSERT INTO session_messages (id, session_id, seq, role, content, hidden, side_chat_context, tool_call_round,
       system_generated, is_summary, compacted, created_at)
     VALUES (?, ?, ?, ?, ?, ?, 0, ?, 0, 0, 0, ?)`,
  );
  const perSession = Math.ceil(count / SESSIONS);
  let n = 0;
  for (let s0 = 0; s0 < SESSIONS && n < count; s0 += 1000) {
    db.transaction(() => {
      for (let s = s0; s < Math.min(SESSIONS, s0 + 1000); s++) {
        for (let seq = 1; seq <= perSession && n < count; seq++, n++) {
          const r = rnd();
          // ~10% tool output and ~5% hidden rows: indexed out, as the real mix would be.
          const role = r < 0.1 ? 'tool' : seq % 2 ? 'user' : 'assistant';
          insert.run(`msg-${n}`, sessionId(s), seq, role, sentence(8, 40), r > 0.95 ? 1 : 0, 0, n);
        }
      }
    })();
  }
}

const collectGarbage = (): void => {
  v8.setFlagsFromString('--expose_gc');
  (runInNewContext('gc') as () => void)();
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(2)} ms  p99 ${pct(xs, 99).toFixed(2)} ms  (n=${xs.length})`;

/**
 * Wall time per call as the main thread sees it, plus process CPU per call (the main thread
 * idles while awaiting one sequential call, so this is the worker's work, immune to other load).
 */
async function measureRecall(
  lane: ReturnType<typeof createReadLane>,
  queries: (readonly [string, string])[],
  label: string,
): Promise<void> {
  const times: number[] = [];
  const cpu: number[] = [];
  let recalled = 0;
  for (const [s, q] of queries) {
    const c = process.cpuUsage();
    const t = performance.now();
    const r = await lane.recall(s, q);
    times.push(performance.now() - t);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
    recalled += r.facts.length;
  }
  console.log(
    `  recall latency${label.padEnd(19)} ${fmt(times)}  avg facts/recall ${(recalled / queries.length).toFixed(2)}`,
  );
  console.log(`  recall CPU per call${' '.repeat(14)} ${fmt(cpu)}`);
}

/** A query: words from a fact the session can see (so recall has real hits) plus Zipf words. */
function makeQuery(db: Db, session: number): string {
  const project = `project-${session % PROJECTS}`;
  const row = db
    .prepare(`SELECT text FROM memory_facts WHERE scope = 'project' AND scope_key = ? ORDER BY seq LIMIT 1 OFFSET ?`)
    .get(project, pick(5)) as { text: string } | undefined;
  const words = row ? row.text.split(' ') : [];
  const chosen = Array.from({ length: Math.min(words.length, 2 + pick(3)) }, () => words[pick(words.length)]!);
  for (let i = pick(3); i > 0; i--) chosen.push(zipfWord());
  return chosen.join(' ') || sentence(3, 5);
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'evoflux-bench-recall-'));
  const file = path.join(dir, 'memory.db');
  const db = openWriter(file);
  db.pragma('synchronous = OFF');
  const lane = createReadLane({
    dbPath: file,
    wikiDir: path.join(dir, 'wiki'),
    size: Number(process.env.RECALL_BENCH_WORKERS) || undefined,
  });
  try {
    seedSessions(db);
    let have = 0;
    for (const size of SIZES) {
      const t0 = performance.now();
      addFacts(db, have, size);
      db.pragma('wal_checkpoint(TRUNCATE)');
      console.log(
        `facts: ${size.toLocaleString()} (loaded ${(size - have).toLocaleString()} in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      );
      have = size;
      const queries = Array.from({ length: 1000 }, () => {
        const s = pick(SESSIONS);
        return [sessionId(s), makeQuery(db, s)] as const;
      });
      for (const [s, q] of queries) await lane.recall(s, q); // warm-up: JIT and page cache
      await measureRecall(lane, queries, '');
      if (size === SIZES[SIZES.length - 1]) {
        // The same index after the engine's own maintenance (bounded FTS5 merge steps, as
        // RecallIndexMaintenance runs them once writes settle), versus the as-loaded layout above.
        const m0 = performance.now();
        let steps = 0;
        while (mergeStep(db, 'memory_facts_fts', 512)) steps++;
        db.pragma('wal_checkpoint(TRUNCATE)');
        console.log(`  index maintenance: ${steps} merge steps in ${((performance.now() - m0) / 1000).toFixed(1)} s`);
        await measureRecall(lane, queries, ' (merged index)');
      }

      if (size === SIZES[SIZES.length - 1]) {
        // Collect the data generator's garbage first: the lag measured is the read lane's, not a
        // major GC of the millions of strings this script built on the main thread.
        collectGarbage();
        await new Promise((resolve) => setTimeout(resolve, 200));
        const h = monitorEventLoopDelay({ resolution: 1 });
        h.enable();
        const t = performance.now();
        await Promise.all(queries.map(([s, q]) => lane.recall(s, q)));
        const wall = performance.now() - t;
        h.disable();
        console.log(
          `  1,000 concurrent recalls  wall ${wall.toFixed(0)} ms; main event-loop lag p50 ${(h.percentile(50) / 1e6).toFixed(2)} ms  p99 ${(h.percentile(99) / 1e6).toFixed(2)} ms  max ${(h.max / 1e6).toFixed(2)} ms`,
        );
      }
    }

    if (MESSAGES > 0) {
      const t0 = performance.now();
      addMessages(db, MESSAGES);
      db.pragma('wal_checkpoint(TRUNCATE)');
      const indexed = (db.prepare('SELECT count(*) AS n FROM dialogue_index_rows').get() as { n: number }).n;
      console.log(
        `dialogue: ${MESSAGES.toLocaleString()} messages (${indexed.toLocaleString()} indexed as evidence) loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
      const searches = Array.from({ length: 300 }, () => {
        const s = pick(SESSIONS);
        return [sessionId(s), sentence(2, 5)] as const;
      });
      for (const [s, q] of searches.slice(0, 20))
        await lane.search({ sessionId: s, query: q, limit: 8, sources: ['dialogue'] });
      for (const sources of [['dialogue'], ['facts', 'wiki', 'dialogue']] as const) {
        const times: number[] = [];
        const cpu: number[] = [];
        let hits = 0;
        for (const [s, q] of searches) {
          const c = process.cpuUsage();
          const t = performance.now();
          hits += (await lane.search({ sessionId: s, query: q, limit: 8, sources })).length;
          times.push(performance.now() - t);
          const used = process.cpuUsage(c);
          cpu.push((used.user + used.system) / 1000);
        }
        console.log(
          `  memory_search [${sources.join(',')}] ${fmt(times)}  avg hits ${(hits / searches.length).toFixed(1)}`,
        );
        console.log(`    CPU per call ${fmt(cpu)}`);
      }
    }
  } finally {
    await lane.close();
    db.close();
    if (process.env.RECALL_BENCH_KEEP) console.log('kept', file);
    else rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
