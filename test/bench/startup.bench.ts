/**
 * Start-up benchmark, through the compiled entry point (bin/evoflux-memory.js) from a folder
 * outside the checkout, side by side with bare `node -e 0` in the same run:
 *   - cold start of a one-shot command (`sessions list --json`),
 *   - MCP: spawn to the first `tools/list` answer, then the first `memory_recall` after connect,
 *     started with the Node flags the README's client configurations give and without them.
 * Wall time is what a user waits for; CPU time (user + system of the child) is what to compare
 * on a busy machine. Prints figures; asserts nothing.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openEngine } from '../../src/main/engine';
import { dispatch } from '../../src/main/commands/dispatch';
import { OWNER } from '../../src/main/commands/principal';
import { tempHome } from '../helpers/home';
import { BIN, FOREIGN_CWD } from '../helpers/cli';
import { SERVER_NODE_FLAGS } from '../helpers/server-flags';
import { ensureBuilt } from '../helpers/build';
import { runBench } from './bench-main';

const RUNS = Number(process.env.STARTUP_BENCH_RUNS ?? 15);
const MCP_RUNS = Number(process.env.STARTUP_BENCH_MCP_RUNS ?? 7);
const TICKS_PER_SECOND = 100; // Linux USER_HZ, the unit of /proc/<pid>/stat times

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))]!;

/** Preloaded into every timed child (bare Node too): prints the process's own CPU time at exit. */
function cpuReporter(dir: string): string {
  const file = path.join(dir, 'report-cpu.js');
  writeFileSync(
    file,
    `process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeSync(2, '\\n__cpu_ms ' + (u.user + u.system) / 1000 + '\\n'); });\n`,
  );
  return file;
}

function timeCommand(args: string[], reporter: string, env: NodeJS.ProcessEnv = {}): { wall: number; cpu: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--require', reporter, ...args], {
    cwd: FOREIGN_CWD,
    encoding: 'utf8',
    env: { ...process.env, EVOFLUX_HOME: '', ...env },
  });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
  const cpu = Number([...r.stderr.matchAll(/__cpu_ms ([\d.]+)/g)].pop()?.[1] ?? NaN);
  return { wall, cpu };
}

/**
 * CPU time a live process (or, with `mainThreadOnly`, its main thread, which is what a client
 * waits for; the read-lane worker warms up beside it) has used so far, in ms (Linux; NaN elsewhere).
 */
function cpuOfPid(pid: number | null, mainThreadOnly = false): number {
  try {
    const stat = mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
    const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
  } catch {
    return NaN;
  }
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const row = (label: string, wall: number[], cpu: number[], base?: { wall: number; cpu: number }) => {
  const ratio = base
    ? `   ${(median(wall) / base.wall).toFixed(2)}x wall, ${(median(cpu) / base.cpu).toFixed(2)}x CPU`
    : '';
  console.log(
    `${label.padEnd(44)} wall p50 ${median(wall).toFixed(0).padStart(4)} ms  p90 ${p90(wall).toFixed(0).padStart(4)} ms` +
      `   CPU p50 ${median(cpu).toFixed(0).padStart(4)} ms${ratio}`,
  );
};

async function seed(home: string): Promise<string> {
  const engine = openEngine({ home });
  try {
    const s = await dispatch(engine, 'sessions.create', { projectId: 'bench', title: 'startup bench' }, OWNER);
    await dispatch(
      engine,
      'facts.add',
      {
        sessionId: s.id,
        text: 'We deploy with Helm charts on Kubernetes',
        scope: 'project',
      },
      OWNER,
    );
    return s.id;
  } finally {
    await engine.close();
  }
}

async function mcpRound(home: string, sessionId: string, nodeFlags: string[]) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeFlags, BIN, 'mcp', '--home', home, '--project', 'bench'],
    cwd: FOREIGN_CWD,
    env: { ...(process.env as Record<string, string>), EVOFLUX_HOME: '' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'startup-bench', version: '0.0.0' });
  await client.connect(transport);
  await client.listTools();
  const toolsList = performance.now() - t0;
  const toolsListCpu = cpuOfPid(transport.pid);
  const toolsListMainCpu = cpuOfPid(transport.pid, true);
  const t1 = performance.now();
  const first = await client.callTool({
    name: 'memory_recall',
    arguments: { sessionId, text: 'how do we deploy helm kubernetes' },
  });
  const firstRecall = performance.now() - t1;
  if (first.isError || !JSON.stringify(first.structuredContent).includes('Helm')) {
    throw new Error(`memory_recall did not recall the fact: ${JSON.stringify(first)}`);
  }
  const t2 = performance.now();
  await client.callTool({ name: 'memory_recall', arguments: { sessionId, text: 'how do we deploy helm kubernetes' } });
  const secondRecall = performance.now() - t2;
  await client.close();
  return { toolsList, toolsListCpu, toolsListMainCpu, firstRecall, secondRecall };
}

async function main() {
  ensureBuilt();
  const home = tempHome('evoflux-bench-startup-');
  try {
    const sessionId = await seed(home.dir);
    const reporter = cpuReporter(home.dir);
    const bare = { wall: [] as number[], cpu: [] as number[] };
    const cli = { wall: [] as number[], cpu: [] as number[] };
    const uncached = { wall: [] as number[], cpu: [] as number[] };
    const sessionsList = [BIN, 'sessions', 'list', '--json', '--home', home.dir];
    // Warms the OS file cache (and writes the bundle's V8 compile cache, bin/compile-cache.js, if
    // the build's warm-up did not).
    timeCommand(sessionsList, reporter);
    for (let i = 0; i < RUNS; i++) {
      // Interleaved, so a burst of load on the shared machine hits both alike.
      const b = timeCommand(['-e', '0'], reporter);
      bare.wall.push(b.wall);
      bare.cpu.push(b.cpu);
      const c = timeCommand(sessionsList, reporter);
      cli.wall.push(c.wall);
      cli.cpu.push(c.cpu);
      const u = timeCommand(sessionsList, reporter, { EVOFLUX_COMPILE_CACHE: '0' });
      uncached.wall.push(u.wall);
      uncached.cpu.push(u.cpu);
    }
    console.log(`${RUNS} runs each, children started in ${FOREIGN_CWD}; load average ${loadAverage()}`);
    row('node -e 0 (baseline)', bare.wall, bare.cpu);
    const base = { wall: median(bare.wall), cpu: median(bare.cpu) };
    row('sessions list --json (cold start)', cli.wall, cli.cpu, base);
    row('  the same without the compile cache', uncached.wall, uncached.cpu, base);

    // As the README's client configurations start it (their Node flags), and without the flags;
    // interleaved.
    const variants = [SERVER_NODE_FLAGS, []].map((flags) => ({
      flags,
      toolsList: [] as number[],
      cpu: [] as number[],
      mainCpu: [] as number[],
      first: [] as number[],
      second: [] as number[],
    }));
    for (let i = 0; i < MCP_RUNS; i++) {
      for (const mcp of variants) {
        const r = await mcpRound(home.dir, sessionId, mcp.flags);
        mcp.toolsList.push(r.toolsList);
        mcp.cpu.push(r.toolsListCpu);
        mcp.mainCpu.push(r.toolsListMainCpu);
        mcp.first.push(r.firstRecall);
        mcp.second.push(r.secondRecall);
      }
    }
    for (const mcp of variants) {
      const command = ['node', ...mcp.flags, path.relative(process.cwd(), BIN), 'mcp --home H'].join(' ');
      console.log(`${MCP_RUNS} MCP servers (${command}):`);
      row('mcp: spawn to first tools/list answer', mcp.toolsList, mcp.cpu);
      console.log(`${'  of which the main thread (CPU)'.padEnd(44)} CPU p50 ${median(mcp.mainCpu).toFixed(0)} ms`);
      console.log(
        `${'mcp: first memory_recall after connect'.padEnd(44)} wall p50 ${median(mcp.first).toFixed(0).padStart(4)} ms  p90 ${p90(mcp.first).toFixed(0).padStart(4)} ms` +
          `   (second call: p50 ${median(mcp.second).toFixed(1)} ms)`,
      );
    }
  } finally {
    home.cleanup();
  }
}

runBench(main, { exit: true });
