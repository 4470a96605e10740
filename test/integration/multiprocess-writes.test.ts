import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/main/engine';
import { dispatch } from '../../src/main/commands/dispatch';
import { OWNER } from '../../src/main/commands/principal';
import { tempHome } from '../helpers/home';
import { BIN } from '../helpers/cli';
import { connectMcp } from '../helpers/mcp';

const N_FACTS = 60;
const N_APP_MESSAGES = 150;
const N_CLI_MESSAGES = 4;
const N_TURNS = 15;

/** One real `evoflux-memory` CLI process, asynchronously, so several overlap. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, EVOFLUX_HOME: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const yieldToLoop = () => new Promise((r) => setImmediate(r));

describe('several processes opening a new home at the same moment', () => {
  it('all succeed: the schema is created once, whoever gets there first', async () => {
    const fresh = tempHome('evoflux-first-open-');
    try {
      // Six processes race to create the database, switch it to WAL and run every migration.
      const runs = await Promise.all(
        Array.from({ length: 6 }, () => cli(['sessions', 'list', '--json', '--home', fresh.dir])),
      );
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      const listed = await cli(['system', 'doctor', '--json', '--home', fresh.dir]);
      expect(JSON.parse(listed.stdout)).toMatchObject({ ok: true });
    } finally {
      fresh.cleanup();
    }
  });
});

describe('several processes writing one home at once', () => {
  const home = tempHome('evoflux-multi-');
  afterAll(() => home.cleanup());

  it('loses nothing and duplicates nothing: two MCP servers, CLI processes and an in-process app engine', async () => {
    // The "desktop app": an engine in this process, writing while the children write.
    const app = openEngine({ home: home.dir });
    try {
      const appSession = await dispatch(app, 'sessions.create', { projectId: 'shared', title: 'app' }, OWNER);
      const cliSession = await dispatch(app, 'sessions.create', { projectId: 'shared', title: 'cli' }, OWNER);
      const [a, b] = await Promise.all([
        connectMcp(home.dir, ['--project', 'shared']),
        connectMcp(home.dir, ['--project', 'shared']),
      ]);
      try {
        const [sa, sb] = await Promise.all([
          a.call('memory_create_session', { projectId: 'shared', title: 'companion A' }),
          b.call('memory_create_session', { projectId: 'shared', title: 'companion B' }),
        ]);

        // Both companions also take turns in ONE shared session at the same time.
        const sharedSession = (await a.call('memory_create_session', { projectId: 'shared', title: 'shared turns' }))
          .id;
        const turns = async (mcp: typeof a, tag: string) => {
          for (let i = 0; i < N_TURNS; i++) {
            await mcp.call('memory_begin_turn', {
              sessionId: sharedSession,
              userText: `${tag} asks question ${i} about the build`,
            });
            await mcp.call('memory_complete_turn', { sessionId: sharedSession, assistantText: `${tag} answer ${i}` });
          }
        };
        const companion = (mcp: typeof a, sessionId: string, tag: string) =>
          Promise.all([
            turns(mcp, tag),
            ...Array.from({ length: N_FACTS }, (_, i) =>
              mcp.call('memory_remember', {
                sessionId,
                scope: 'project',
                kind: 'fact',
                text: `${tag} observation number ${i}`,
              }),
            ),
            // The same fact from both companions: one row, reinforced by two sessions.
            mcp.call('memory_remember', {
              sessionId,
              scope: 'project',
              kind: 'convention',
              text: 'Both teams use trunk based development',
            }),
          ]);
        const appWrites = (async () => {
          for (let i = 0; i < N_APP_MESSAGES; i++) {
            await dispatch(
              app,
              'messages.add',
              {
                sessionId: appSession.id,
                role: i % 2 ? 'assistant' : 'user',
                content: `app message ${i}`,
              },
              OWNER,
            );
            await yieldToLoop();
          }
        })();
        const cliWrites = Promise.all(
          [0, 1].map(async (lane) => {
            const results = [];
            for (let i = 0; i < N_CLI_MESSAGES; i++) {
              results.push(
                await cli([
                  'messages',
                  'add',
                  '--home',
                  home.dir,
                  '--session',
                  cliSession.id,
                  '--role',
                  'user',
                  `cli lane ${lane} message ${i}`,
                ]),
              );
            }
            return results;
          }),
        );

        const [ra, rb, , cliResults] = await Promise.all([
          companion(a, sa.id, 'A'),
          companion(b, sb.id, 'B'),
          appWrites,
          cliWrites,
        ]);
        expect(ra).toHaveLength(N_FACTS + 2);
        expect(rb).toHaveLength(N_FACTS + 2);
        for (const r of cliResults.flat()) expect(r.code, r.stderr).toBe(0);

        // Every write is there exactly once, read back by yet another connection.
        const count = (sql: string, ...p: unknown[]) => (app.db.prepare(sql).get(...p) as { n: number }).n;
        expect(count("SELECT count(*) AS n FROM memory_facts WHERE text LIKE 'A observation number %'")).toBe(N_FACTS);
        expect(count("SELECT count(*) AS n FROM memory_facts WHERE text LIKE 'B observation number %'")).toBe(N_FACTS);
        const shared = app.db
          .prepare("SELECT id, reinforcement FROM memory_facts WHERE text = 'Both teams use trunk based development'")
          .all() as { id: string; reinforcement: number }[];
        expect(shared).toHaveLength(1);
        expect(shared[0]!.reinforcement).toBe(2);
        expect(
          count(
            'SELECT count(*) AS n FROM memory_fact_evidence WHERE fact_seq = (SELECT seq FROM memory_facts WHERE id = ?)',
            shared[0]!.id,
          ),
        ).toBe(2);
        expect(count('SELECT count(*) AS n FROM memory_facts')).toBe(2 * N_FACTS + 1);

        for (const [sessionId, expected] of [
          [appSession.id, N_APP_MESSAGES],
          [cliSession.id, 2 * N_CLI_MESSAGES],
        ] as const) {
          const seqs = (
            app.db.prepare('SELECT seq FROM session_messages WHERE session_id = ? ORDER BY seq').all(sessionId) as {
              seq: number;
            }[]
          ).map((r) => r.seq);
          expect(seqs).toEqual(Array.from({ length: expected }, (_, i) => i + 1));
        }
        // The shared session: every turn of both processes, in one gap-free sequence.
        const sharedRows = app.db
          .prepare('SELECT seq, role, content, hidden FROM session_messages WHERE session_id = ? ORDER BY seq')
          .all(sharedSession) as { seq: number; role: string; content: string; hidden: number }[];
        expect(sharedRows.map((r) => r.seq)).toEqual(sharedRows.map((_, i) => i + 1));
        const visibleTurns = sharedRows.filter((r) => !r.hidden);
        expect(visibleTurns).toHaveLength(2 * 2 * N_TURNS);
        for (const tag of ['A', 'B']) {
          expect(visibleTurns.filter((r) => r.role === 'user' && r.content.startsWith(`${tag} asks`))).toHaveLength(
            N_TURNS,
          );
          expect(
            visibleTurns.filter((r) => r.role === 'assistant' && r.content.startsWith(`${tag} answer`)),
          ).toHaveLength(N_TURNS);
        }
        // Each companion sees its own facts through its own process, and the other's in the shared project.
        const listed = await a.call('memory_list_facts', { sessionId: sa.id, limit: 200 });
        expect(listed.facts).toHaveLength(2 * N_FACTS + 1);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    } finally {
      await app.close();
    }
  });

  it('serializes Dream across processes with the file lock: each session is consolidated once', async () => {
    const dreamHome = tempHome('evoflux-multi-dream-');
    try {
      const app = openEngine({ home: dreamHome.dir });
      const K = 6;
      try {
        for (let i = 0; i < K; i++) {
          const s = await dispatch(app, 'sessions.create', { projectId: `p${i}`, title: `session ${i}` }, OWNER);
          await dispatch(
            app,
            'messages.add',
            {
              sessionId: s.id,
              role: 'user',
              content: `We decided to ship release ${i} on Monday.`,
            },
            OWNER,
          );
          await dispatch(
            app,
            'messages.add',
            {
              sessionId: s.id,
              role: 'assistant',
              content: `Release ${i} ships Monday.`,
            },
            OWNER,
          );
        }
      } finally {
        await app.close();
      }
      const [a, b] = await Promise.all([connectMcp(dreamHome.dir), connectMcp(dreamHome.dir)]);
      try {
        const runs = await Promise.all([
          a.call('memory_run_dream', { drain: true }),
          b.call('memory_run_dream', { drain: true }),
        ]);
        const processed = runs.reduce((n, r) => n + r.sessionsProcessed, 0);
        // Whichever way the two runs interleave, no session is consolidated twice or skipped.
        expect(processed).toBe(K);
        for (const r of runs) expect(['completed', 'already_running']).toContain(r.status);
        const status = await a.call('memory_dream_status', {});
        if (runs.some((r) => r.status === 'already_running')) {
          // The refused run did nothing; a follow-up finds nothing left either way.
          expect(runs.find((r) => r.status === 'already_running')!.sessionsProcessed).toBe(0);
        }
        expect(status.pendingSessions).toBe(0);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    } finally {
      dreamHome.cleanup();
    }
  });

  it('the HTTP door (serve) and an MCP server share one home; HTTP agents get the same confinement', async () => {
    const httpHome = tempHome('evoflux-multi-http-');
    const serve = spawn(process.execPath, [BIN, 'serve', '--home', httpHome.dir, '--port', '0', '--json'], {
      env: { ...process.env, EVOFLUX_HOME: '' },
    });
    try {
      const info = await new Promise<{ url: string; tokenFile: string }>((resolve, reject) => {
        let out = '';
        let err = '';
        serve.stderr.on('data', (c) => (err += c));
        serve.stdout.on('data', (c) => {
          out += c;
          const line = out.split('\n').find((l) => l.trim().startsWith('{'));
          if (line) resolve(JSON.parse(line));
        });
        serve.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
      });
      const token = readFileSync(info.tokenFile, 'utf8').trim();
      const http = async (name: string, input: unknown) => {
        const res = await fetch(`${info.url}/api/commands/${name}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(input),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      const mcp = await connectMcp(httpHome.dir, ['--project', 'tool']);
      try {
        const web = (await http('sessions.create', { projectId: 'web', title: 'over HTTP' })).body.id as string;
        const tool = (await mcp.call('memory_create_session', { projectId: 'tool', title: 'over MCP' })).id as string;
        const N = 40;
        await Promise.all([
          ...Array.from({ length: N }, (_, i) =>
            http('facts.add', { sessionId: web, scope: 'project', text: `web fact ${i}` }),
          ),
          ...Array.from({ length: N }, (_, i) =>
            mcp.call('memory_remember', { sessionId: tool, scope: 'project', text: `tool fact ${i}` }),
          ),
        ]);
        const webFacts = (await http('memory.facts', { sessionId: web, limit: 200 })).body.facts as {
          id: string;
          text: string;
        }[];
        const toolFacts = (await mcp.call('memory_list_facts', { sessionId: tool, limit: 200 })).facts as {
          id: string;
          text: string;
        }[];
        expect(webFacts).toHaveLength(N);
        expect(toolFacts).toHaveLength(N);
        expect(webFacts.every((f) => f.text.startsWith('web fact'))).toBe(true);
        expect(toolFacts.every((f) => f.text.startsWith('tool fact'))).toBe(true);
        // Across doors as well: the HTTP session cannot forget the MCP session's fact.
        const refused = await http('memory.forget', { sessionId: web, factId: toolFacts[0]!.id });
        expect(refused.status).toBe(404);
        expect(refused.body.error).toMatchObject({ code: 'not_found', field: 'factId' });
        expect((await mcp.call('memory_list_facts', { sessionId: tool, limit: 200 })).facts).toHaveLength(N);
      } finally {
        await mcp.close();
      }
    } finally {
      serve.kill('SIGTERM');
      await new Promise((r) => (serve.exitCode !== null ? r(null) : serve.once('exit', r)));
      httpHome.cleanup();
    }
  });
});
