/**
 * How a fresh server's search cost falls as V8 optimizes its code. A data home of its own is made
 * as the bench's is at 1k (the same facts through one session of project p0, then a fresh server
 * whose agent begins 100 turns), and that server answers chunks of sequential `memory_search`
 * calls: each chunk's wall p50 and the server's CPU per call on each thread, beside the same
 * chunks against the official MCP memory server given the same facts, when it is installed. The
 * targets are judged on a fresh server's first calls; this shows where the same code lands once
 * warm, and on which threads the difference is spent.
 */
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { connectMcp } from '../../helpers/mcp';
import { FOREIGN_CWD } from '../../helpers/cli';
import { tempHome } from '../../helpers/home';
import { series, pct, ms } from './measure';
import { threadStartOrder, threadTimes } from './threads';
import { peerInstalled, startPeer } from './peer';
import { FactSource, type BenchFact } from './data';

export interface WarmUpOptions {
  /** Facts a single session of project p0 stores, every one visible to it. */
  facts: readonly BenchFact[];
  queries: readonly string[];
  chunks: number;
  nodeFlags: string[];
}

/** CPU per call (ms) of each thread that used any: the main thread first, then in the order they started. */
function cpuByThread(pid: number, before: Map<number, number>, after: Map<number, number>, calls: number): number[] {
  return threadStartOrder(pid)
    .map((tid) => ((after.get(tid) ?? 0) - (before.get(tid) ?? 0)) / 1e6 / calls)
    .filter((perCall, i) => i === 0 || perCall >= 0.01);
}

/** The home as the bench's is at 1k: the facts, stored by one session of p0; that session's id. */
async function loadHome(home: string, o: WarmUpOptions): Promise<string> {
  const loader = await connectMcp(home, ['--project', 'p0'], {}, { nodeFlags: o.nodeFlags });
  try {
    const sessionId = (await loader.call('memory_create_session', { projectId: 'p0', title: 'bench 0.0' })).id;
    for (let at = 0; at < o.facts.length; at += 1000) {
      await loader.call('memory_remember_batch', { sessionId, facts: o.facts.slice(at, at + 1000) });
    }
    return sessionId;
  } finally {
    await loader.close();
  }
}

async function ourChunks(home: string, sessionId: string, o: WarmUpOptions) {
  const agent = await connectMcp(home, ['--project', 'p0'], {}, { nodeFlags: o.nodeFlags });
  const p50: number[] = [];
  const threads: number[][] = [];
  try {
    // As in the bench: the agent's first calls begin turns, which also give the search a dialogue.
    const turn = (await agent.call('memory_create_session', { projectId: 'p0', title: 'turns' })).id;
    const words = new FactSource(99);
    for (let i = 0; i < 100; i++) {
      await agent.call('memory_begin_turn', { sessionId: turn, userText: `${words.sentence(4, 9)} question ${i}?` });
    }
    for (let c = 0; c < o.chunks; c++) {
      const before = threadTimes(agent.pid);
      const s = await series(agent.pid, o.queries.length, (i) =>
        agent.call('memory_search', { sessionId, query: o.queries[i]! }),
      );
      p50.push(pct(s.wall, 50));
      threads.push(cpuByThread(agent.pid, before, threadTimes(agent.pid), o.queries.length));
    }
  } finally {
    await agent.close();
  }
  return { p50, threads };
}

async function peerChunks(dir: string, o: WarmUpOptions): Promise<number[]> {
  mkdirSync(dir, { recursive: true });
  const peer = await startPeer(dir, FOREIGN_CWD);
  const p50: number[] = [];
  try {
    await peer.load(o.facts);
    for (let c = 0; c < o.chunks; c++) {
      const s = await series(peer.pid, o.queries.length, (i) => peer.search(o.queries[i]!));
      p50.push(pct(s.wall, 50));
    }
  } finally {
    await peer.close();
  }
  return p50;
}

export async function warmUpCurve(o: WarmUpOptions): Promise<void> {
  const home = tempHome('evoflux-bench-warm-up-');
  try {
    const ours = await ourChunks(home.dir, await loadHome(home.dir, o), o);
    const n = o.queries.length;
    console.log(
      `  warm-up, ${o.chunks} x ${n} memory_search on one more fresh server (a home as this one at 1k): wall p50 per ${n}: ${ours.p50.map(ms).join(' / ')} ms`,
    );
    const show = (cpu: number[]) => cpu.map(ms).join(', ');
    console.log(
      `    server CPU per call by thread (main, then the others as they started), first ${n}: ${show(ours.threads[0]!)}; last ${n}: ${show(ours.threads.at(-1)!)} ms`,
    );
    if (!peerInstalled()) return;
    const theirs = await peerChunks(path.join(home.dir, 'peer'), o);
    console.log(`    official server search_nodes, the same chunks: ${theirs.map(ms).join(' / ')} ms`);
    console.log(
      `    ours against the official server, first ${n}: ${(ours.p50[0]! / theirs[0]!).toFixed(2)}x its time; last ${n}: ${(ours.p50.at(-1)! / theirs.at(-1)!).toFixed(2)}x`,
    );
  } finally {
    home.cleanup();
  }
}
