/**
 * MCP door benchmark: server start-up (spawn to initialized), tool-call round trips over stdio
 * (memory_remember, memory_list_facts on a 10k-fact store, memory_begin_turn/complete_turn when
 * they exist), and two MCP server processes writing one home at once. Prints figures; asserts nothing.
 */
import { performance } from 'node:perf_hooks';
import { openEngine } from '../../src/main/engine';
import { writeTx } from '../../src/main/store/db';
import { recordFact } from '../../src/main/store/facts';
import { coerceScope, resolveScopes } from '../../src/main/memory/scope';
import { dispatch } from '../../src/main/commands/dispatch';
import { OWNER } from '../../src/main/commands/principal';
import { tempHome } from '../helpers/home';
import { connectMcp, type McpSession } from '../helpers/mcp';

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(2)} ms  p99 ${pct(xs, 99).toFixed(2)} ms  (n=${xs.length})`;

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

async function main() {
  const home = tempHome('evoflux-bench-mcp-');
  try {
    // Seed 10k facts in the session's project so listing has something to page through.
    const seed = openEngine({ home: home.dir });
    const s = await dispatch(seed, 'sessions.create', { projectId: 'bench' }, OWNER);
    const scopes = resolveScopes(seed.db, s.id);
    writeTx(seed.db, () => {
      for (let i = 0; i < 10_000; i++) {
        recordFact(
          seed.db,
          {
            text: `bench fact ${i} about module ${i % 97}`,
            kind: 'fact',
            confidence: 'medium',
            origin: 'manual',
            target: coerceScope(scopes, 'project', 'fact'),
            sessionId: s.id,
            messageId: null,
          },
          Date.now(),
        );
      }
    });
    await seed.close();

    const startups: number[] = [];
    let mcp: McpSession | null = null;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const m = await connectMcp(home.dir, ['--project', 'bench']);
      startups.push(performance.now() - t0);
      if (i < 2) await m.close();
      else mcp = m;
    }
    console.log(
      `mcp start-up (spawn + initialize, compiled entry): ${startups.map((x) => x.toFixed(0)).join(', ')} ms`,
    );
    const m = mcp!;

    const remember = await timed(300, (i) =>
      m.call('memory_remember', { sessionId: s.id, text: `timed fact ${i}`, scope: 'project' }),
    );
    console.log(`memory_remember round trip:              ${fmt(remember)}`);
    const list = await timed(200, (i) =>
      m.call('memory_list_facts', { sessionId: s.id, limit: 20, text: `module ${i % 97}` }),
    );
    console.log(`memory_list_facts (10k facts, text filter): ${fmt(list)}`);
    const firstPage = await timed(200, () => m.call('memory_list_facts', { sessionId: s.id, limit: 20 }));
    console.log(`memory_list_facts (10k facts, first page):  ${fmt(firstPage)}`);

    const { tools } = await m.client.listTools();
    if (tools.some((t) => t.name === 'memory_begin_turn') && tools.some((t) => t.name === 'memory_complete_turn')) {
      const turn = (await m.call('memory_create_session', { projectId: 'bench' })).id;
      const begin: number[] = [];
      const complete: number[] = [];
      for (let i = 0; i < 50; i++) {
        let t0 = performance.now();
        await m.call('memory_begin_turn', {
          sessionId: turn,
          userText: `How does module ${i % 97} handle bench facts?`,
        });
        begin.push(performance.now() - t0);
        t0 = performance.now();
        await m.call('memory_complete_turn', { sessionId: turn, assistantText: `Module ${i % 97} answer ${i}.` });
        complete.push(performance.now() - t0);
      }
      console.log(`memory_begin_turn (recall over 10k):    ${fmt(begin)}`);
      console.log(`memory_complete_turn:                   ${fmt(complete)}`);
    } else {
      console.log('memory_begin_turn / memory_complete_turn: not in this build');
    }

    const other = await connectMcp(home.dir, ['--project', 'bench']);
    const N = 500;
    const t0 = performance.now();
    await Promise.all(
      [m, other].map((c, lane) =>
        Promise.all(
          Array.from({ length: N }, (_, i) =>
            c.call('memory_remember', { sessionId: s.id, text: `lane ${lane} write ${i}`, scope: 'project' }),
          ),
        ),
      ),
    );
    const ms = performance.now() - t0;
    console.log(
      `two MCP processes, ${2 * N} concurrent remember calls: ${ms.toFixed(0)} ms (${((2 * N) / (ms / 1000)).toFixed(0)} writes/s)`,
    );
    await Promise.all([m.close(), other.close()]);
  } finally {
    home.cleanup();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    // Spawned MCP servers would keep this process alive; the exit takes them down with their stdin.
    process.exit(1);
  },
);
