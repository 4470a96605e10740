/**
 * MCP door benchmark on a 100k-fact store: server start-up (spawn to initialized), round trips of
 * memory_recall and memory_search over stdio and over Streamable HTTP (`serve` at /mcp), 100 HTTP
 * clients at once, memory_remember and turns over stdio, and two MCP server processes writing one
 * home at once. Prints wall-clock figures with the CPU time the processes used and the machine's
 * load average (the build machine is shared); asserts nothing.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { openEngine } from '../../src/main/engine';
import { writeTx } from '../../src/main/store/db';
import { recordFact } from '../../src/main/store/facts';
import { coerceScope, resolveScopes } from '../../src/main/memory/scope';
import { dispatch } from '../../src/main/commands/dispatch';
import { OWNER } from '../../src/main/commands/principal';
import { tempHome } from '../helpers/home';
import { connectMcp, type McpSession } from '../helpers/mcp';
import { connectHttpMcp } from '../helpers/mcp-http';
import { startServe } from '../helpers/serve';
import { runBench } from './bench-main';

const FACTS = 100_000;
const SUBJECTS = [
  'billing',
  'search',
  'auth',
  'payments',
  'reports',
  'gateway',
  'scheduler',
  'exports',
  'inbox',
  'audit',
];
const VERBS = ['uses', 'deploys with', 'caches in', 'logs to', 'retries through', 'stores data in', 'is tested with'];
const OBJECTS = [
  'postgres',
  'redis',
  'kafka',
  'docker compose',
  'helm',
  'sqlite',
  's3',
  'grpc',
  'vitest',
  'nginx',
  'sentry',
];

const factText = (i: number) =>
  `The ${SUBJECTS[i % SUBJECTS.length]} service ${VERBS[(i >> 3) % VERBS.length]} ${OBJECTS[(i >> 5) % OBJECTS.length]} in module ${i % 997}`;
const recallQuery = (i: number) =>
  `How does the ${SUBJECTS[i % SUBJECTS.length]} service use ${OBJECTS[(i * 7) % OBJECTS.length]} in module ${(i * 13) % 997}?`;
const searchQuery = (i: number) => `${SUBJECTS[(i * 3) % SUBJECTS.length]} ${OBJECTS[(i * 5) % OBJECTS.length]}`;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(2)} ms  p99 ${pct(xs, 99).toFixed(2)} ms  (n=${xs.length})`;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); null elsewhere. */
function cpuOf(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

/** Wall time and the CPU time `pids` (this process included) spent while `fn` ran. */
async function measured<T>(pids: number[], fn: () => Promise<T>): Promise<{ result: T; wallMs: number; cpu: string }> {
  const before = pids.map(cpuOf);
  const own = process.cpuUsage();
  const t0 = performance.now();
  const result = await fn();
  const wallMs = performance.now() - t0;
  const ownMs = (process.cpuUsage(own).user + process.cpuUsage(own).system) / 1000;
  const children = pids.map((pid, i) => {
    const a = before[i];
    const b = cpuOf(pid);
    return a === null || b === null ? 'n/a' : `${((b - a) * 1000).toFixed(0)} ms`;
  });
  return { result, wallMs, cpu: `CPU: server ${children.join(' + ')}, bench client ${ownMs.toFixed(0)} ms` };
}

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

const load = () =>
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')} on ${os.cpus().length} cores`;

async function seed(home: string): Promise<string> {
  const engine = openEngine({ home });
  const s = await dispatch(engine, 'sessions.create', { projectId: 'bench' }, OWNER);
  const scopes = resolveScopes(engine.db, s.id);
  const target = coerceScope(scopes, 'project', 'fact');
  const now = Date.now();
  for (let start = 0; start < FACTS; start += 10_000) {
    writeTx(engine.db, () => {
      for (let i = start; i < start + 10_000; i++) {
        recordFact(
          engine.db,
          {
            text: factText(i),
            kind: 'fact',
            confidence: 'medium',
            origin: 'manual',
            target,
            sessionId: s.id,
            messageId: null,
          },
          now,
        );
      }
    });
  }
  await engine.close();
  return s.id;
}

const childPid = (m: McpSession) => (m.client.transport as unknown as { _process: { pid: number } })._process.pid;

async function readPaths(label: string, m: McpSession, session: string, pid: number) {
  // Warm the read lane and the statement caches before measuring.
  for (let i = 0; i < 20; i++) await m.call('memory_recall', { sessionId: session, text: recallQuery(i) });
  const recall = await measured([pid], () =>
    timed(300, (i) => m.call('memory_recall', { sessionId: session, text: recallQuery(i + 100) })),
  );
  console.log(`${label} memory_recall (${FACTS / 1000}k facts): ${fmt(recall.result)}  ${recall.cpu}`);
  const search = await measured([pid], () =>
    timed(300, (i) => m.call('memory_search', { sessionId: session, query: searchQuery(i) })),
  );
  console.log(`${label} memory_search (${FACTS / 1000}k facts): ${fmt(search.result)}  ${search.cpu}`);
}

async function concurrentClients(url: string, token: string, session: string, pid: number) {
  const N = 100;
  const CALLS = 10;
  const connect = await measured([pid], () =>
    Promise.all(Array.from({ length: N }, () => connectHttpMcp(url, token, { project: ['bench'] }))),
  );
  const clients = connect.result;
  console.log(`${N} HTTP clients connect at once: ${connect.wallMs.toFixed(0)} ms  ${connect.cpu}`);
  const latencies: number[] = [];
  const run = await measured([pid], () =>
    Promise.all(
      clients.map(async (c, k) => {
        for (let i = 0; i < CALLS; i++) {
          const t0 = performance.now();
          await c.call(i % 2 ? 'memory_search' : 'memory_recall', {
            sessionId: session,
            ...(i % 2 ? { query: searchQuery(k + i) } : { text: recallQuery(k * CALLS + i) }),
          });
          latencies.push(performance.now() - t0);
        }
      }),
    ),
  );
  const rate = (N * CALLS) / (run.wallMs / 1000);
  console.log(
    `${N} HTTP clients x ${CALLS} recall/search calls at once: ${run.wallMs.toFixed(0)} ms (${rate.toFixed(0)} calls/s), per call ${fmt(latencies)}  ${run.cpu}`,
  );
  await Promise.all(clients.map((c) => c.close()));
}

async function stdioWrites(m: McpSession, session: string) {
  const remember = await timed(300, (i) =>
    m.call('memory_remember', { sessionId: session, text: `timed fact ${i}`, scope: 'project' }),
  );
  console.log(`stdio memory_remember:                 ${fmt(remember)}`);
  const turn = (await m.call('memory_create_session', { projectId: 'bench' })).id;
  const begin: number[] = [];
  const complete: number[] = [];
  for (let i = 0; i < 50; i++) {
    let t0 = performance.now();
    await m.call('memory_begin_turn', { sessionId: turn, userText: recallQuery(i) });
    begin.push(performance.now() - t0);
    t0 = performance.now();
    await m.call('memory_complete_turn', { sessionId: turn, assistantText: `Answer ${i}.` });
    complete.push(performance.now() - t0);
  }
  console.log(`stdio memory_begin_turn (recall over ${FACTS / 1000}k): ${fmt(begin)}`);
  console.log(`stdio memory_complete_turn:            ${fmt(complete)}`);
}

async function main() {
  const home = tempHome('evoflux-bench-mcp-');
  try {
    const t0 = performance.now();
    const session = await seed(home.dir);
    console.log(
      `seeded ${FACTS.toLocaleString('en-US')} facts in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${load()}`,
    );

    const startups: number[] = [];
    let mcp: McpSession | null = null;
    for (let i = 0; i < 3; i++) {
      const s0 = performance.now();
      const m = await connectMcp(home.dir, ['--project', 'bench']);
      startups.push(performance.now() - s0);
      if (i < 2) await m.close();
      else mcp = m;
    }
    console.log(
      `mcp start-up (spawn + initialize, compiled entry): ${startups.map((x) => x.toFixed(0)).join(', ')} ms`,
    );
    const m = mcp!;
    await readPaths('stdio', m, session, childPid(m));

    const serve = await startServe(home.dir);
    try {
      const http = await connectHttpMcp(serve.url, serve.token, { project: ['bench'] });
      await readPaths('HTTP ', http, session, serve.child.pid!);
      await http.close();
      await concurrentClients(serve.url, serve.token, session, serve.child.pid!);
    } finally {
      await serve.stop();
    }

    await stdioWrites(m, session);
    const other = await connectMcp(home.dir, ['--project', 'bench']);
    const N = 500;
    const w0 = performance.now();
    await Promise.all(
      [m, other].map((c, lane) =>
        Promise.all(
          Array.from({ length: N }, (_, i) =>
            c.call('memory_remember', { sessionId: session, text: `lane ${lane} write ${i}`, scope: 'project' }),
          ),
        ),
      ),
    );
    const ms = performance.now() - w0;
    console.log(
      `two MCP processes, ${2 * N} concurrent remember calls: ${ms.toFixed(0)} ms (${((2 * N) / (ms / 1000)).toFixed(0)} writes/s)`,
    );
    await Promise.all([m.close(), other.close()]);
    console.log(`done; ${load()}`);
  } finally {
    home.cleanup();
  }
}

// Spawned MCP servers would keep this process alive; the exit takes them down with their stdin.
runBench(main, { exit: true });
