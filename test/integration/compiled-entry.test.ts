import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, runCli } from '../helpers/cli';
import { tempHome } from '../helpers/home';
import { ROOT } from '../helpers/build';
import { migrations } from '../../src/main/store/migrations';

const LATEST_SCHEMA = Math.max(...migrations.map((m) => m.version));

/**
 * The original failure: started from any folder but the checkout, the read-lane workers died
 * ("Cannot find module 'tsx/cjs'"), so recall and search failed and turns went on without
 * memory. Every door is run here as a user runs it: the compiled entry point, from a temp
 * folder and from `/`, with --home and with EVOFLUX_HOME.
 */
const FACT = 'We deploy the billing service with Helm charts on Kubernetes';
const QUERY = 'how do we deploy billing with helm kubernetes';

const homes: { cleanup(): void }[] = [];
const newHome = () => {
  const h = tempHome('evoflux-anywhere-');
  homes.push(h);
  return h.dir;
};
afterAll(() => homes.forEach((h) => h.cleanup()));

interface Where {
  label: string;
  cwd: () => string;
  /** Passes the home as --home, or only through EVOFLUX_HOME. */
  viaEnv: boolean;
}

const places: Where[] = [
  { label: 'a temp folder, --home', cwd: () => newHome(), viaEnv: false },
  { label: '/, EVOFLUX_HOME', cwd: () => '/', viaEnv: true },
];

function cliIn(where: Where, home: string) {
  const cwd = where.cwd();
  return (...args: string[]) => {
    const r = runCli(
      [...args, ...(where.viaEnv ? [] : ['--home', home]), '--json'],
      where.viaEnv ? { EVOFLUX_HOME: home } : {},
      cwd,
    );
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return r.json();
  };
}

describe('the compiled CLI from any working directory', () => {
  for (const where of places) {
    it(`recalls, searches and runs a turn from ${where.label}`, () => {
      const home = newHome();
      const cli = cliIn(where, home);
      const s = cli('sessions', 'add', '--project', 'billing');
      cli('facts', 'add', '--session', s.id, '--scope', 'project', '--kind', 'decision', FACT);

      expect(cli('recall', '--session', s.id, QUERY).facts.map((f: { text: string }) => f.text)).toEqual([FACT]);
      const hits = cli('search', '--session', s.id, '--sources', 'facts', 'helm kubernetes billing').results;
      expect(hits[0]).toMatchObject({ source: 'fact', title: expect.any(String) });
      expect(hits[0].snippet).toContain('Helm');

      const turn = cli('turns', 'begin', '--session', s.id, QUERY);
      expect(turn.recallStatus).toEqual({ status: 'ok', reason: null });
      expect(turn.context.recall.facts.map((f: { text: string }) => f.text)).toEqual([FACT]);
      expect(turn.context.recall.block).toContain(FACT);
    });
  }

  it('says how to build when the compiled output is missing', () => {
    const install = newHome();
    mkdirSync(path.join(install, 'bin'));
    cpSync(BIN, path.join(install, 'bin', 'evoflux-memory.js'));
    const r = spawnSync(process.execPath, [path.join(install, 'bin', 'evoflux-memory.js'), 'sessions', 'list'], {
      cwd: '/',
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('npm run build');
    expect(r.stderr).toContain(path.join(install, 'out', 'main', 'cli.js'));
  });

  it('fails, saying so, when a command stops before it finished', () => {
    // The launcher as installed, in front of a command whose main awaits what nothing settles (as
    // engine.close did when the rule extractor's idle child was the last thing it waited for).
    const install = newHome();
    cpSync(path.dirname(BIN), path.join(install, 'bin'), { recursive: true });
    mkdirSync(path.join(install, 'out', 'main'), { recursive: true });
    const stuck = `exports.main = async () => { console.log('half done'); await new Promise(() => {}); return 0; };`;
    writeFileSync(path.join(install, 'out', 'main', 'cli.js'), stuck);
    const r = spawnSync(process.execPath, [path.join(install, 'bin', 'evoflux-memory.js'), 'sessions', 'list'], {
      cwd: '/',
      encoding: 'utf8',
    });
    expect(r.stdout).toBe('half done\n');
    expect(r.stderr).toContain('the command stopped before it finished');
    expect(r.status).toBe(1);
  });
});

describe('serve from outside the checkout', () => {
  for (const where of places) {
    it(`answers recall, search, a turn and /api/health from ${where.label}`, async () => {
      const home = newHome();
      const child = spawn(
        process.execPath,
        [BIN, 'serve', '--port', '0', '--json', ...(where.viaEnv ? [] : ['--home', home])],
        {
          cwd: where.cwd(),
          env: { ...process.env, EVOFLUX_HOME: where.viaEnv ? home : '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      try {
        const info = await new Promise<{ url: string; browserUrl: string; home: string }>((resolve, reject) => {
          let out = '';
          let err = '';
          child.stderr.on('data', (d) => (err += d));
          child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${err}`)));
          child.stdout.on('data', (d) => {
            out += d;
            if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
          });
        });
        expect(info.home).toBe(home);
        const token = info.browserUrl.split('#token=')[1]!;
        const post = async (name: string, input: unknown) => {
          const r = await fetch(`${info.url}/api/commands/${name}`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify(input),
          });
          expect(r.status, `${name}: ${await r.clone().text()}`).toBe(200);
          return r.json();
        };
        const s = await post('sessions.create', { projectId: 'billing' });
        await post('facts.add', { sessionId: s.id, text: FACT, scope: 'project', kind: 'decision' });
        expect((await post('memory.recall', { sessionId: s.id, text: QUERY })).facts).toHaveLength(1);
        const hits = await post('memory.search', { sessionId: s.id, query: 'helm kubernetes billing' });
        expect(hits.results.map((h: { source: string }) => h.source)).toContain('fact');
        const turn = await post('turns.begin', { sessionId: s.id, userText: QUERY });
        expect(turn.recallStatus.status).toBe('ok');
        expect(turn.context.recall.facts).toHaveLength(1);

        expect((await fetch(`${info.url}/api/health`)).status).toBe(401);
        const health = await fetch(`${info.url}/api/health`, { headers: { Authorization: `Bearer ${token}` } });
        expect(health.status).toBe(200);
        expect(await health.json()).toMatchObject({
          ok: true,
          home,
          readLane: { ok: true },
          process: { kind: 'serve' },
          database: { walCheckpoints: { failures: 0, lastError: null } },
        });
      } finally {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      }
    });
  }
});

describe('mcp with the README configuration', () => {
  for (const where of places) {
    it(`recalls, searches and begins a turn from ${where.label}`, async () => {
      const home = newHome();
      // The README's configuration: `node /abs/path/bin/evoflux-memory.js mcp --home H --project P
      // --workspace W`, started by the agent client from its own folder.
      const transport = new StdioClientTransport({
        command: 'node',
        args: [BIN, 'mcp', ...(where.viaEnv ? [] : ['--home', home]), '--project', 'billing', '--workspace', home],
        cwd: where.cwd(),
        env: { ...(process.env as Record<string, string>), EVOFLUX_HOME: where.viaEnv ? home : '' },
        stderr: 'pipe',
      });
      let logs = '';
      transport.stderr?.on('data', (d: Buffer) => (logs += d));
      const client = new Client({ name: 'anywhere-test', version: '0.0.0' });
      await client.connect(transport);
      try {
        const call = async (name: string, args: Record<string, unknown>) => {
          const r = await client.callTool({ name, arguments: args });
          if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)} ${logs}`);
          return r.structuredContent as any;
        };
        const s = await call('memory_create_session', { projectId: 'billing', workspace: home });
        await call('memory_remember', { sessionId: s.id, text: FACT, scope: 'project', kind: 'decision' });
        expect((await call('memory_recall', { sessionId: s.id, text: QUERY })).facts).toHaveLength(1);
        const hits = await call('memory_search', { sessionId: s.id, query: 'helm kubernetes billing' });
        expect(hits.results.map((h: { source: string }) => h.source)).toContain('fact');
        const turn = await call('memory_begin_turn', { sessionId: s.id, userText: QUERY });
        expect(turn.recallStatus).toEqual({ status: 'ok', reason: null });
        expect(turn.context.recall.block).toContain(FACT);
      } finally {
        await client.close();
      }
    });
  }
});

describe('a broken install', () => {
  it('doctor exits 1 and names the reason when the read-lane worker is missing', () => {
    // A copy of the compiled program without its worker file: what a half-finished build leaves.
    const install = newHome();
    cpSync(path.join(ROOT, 'bin'), path.join(install, 'bin'), { recursive: true });
    cpSync(path.join(ROOT, 'out', 'main'), path.join(install, 'out', 'main'), { recursive: true });
    rmSync(path.join(install, 'out', 'main', 'read-lane.worker.js'));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(install, 'node_modules'));
    const home = newHome();
    const r = spawnSync(process.execPath, [path.join(install, 'bin', 'evoflux-memory.js'), 'doctor', '--home', home], {
      cwd: '/',
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('status:     BROKEN');
    expect(r.stderr).toMatch(/read lane .*worker file missing/);
    const log = path.join(home, 'logs', 'evoflux.log');
    expect(readFileSync(log, 'utf8')).toMatch(/ INFO {2}cli\[\d+\] doctor: broken: read lane/);
    expect(statSync(log).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(log)).mode & 0o777).toBe(0o700);

    const ok = runCli(['doctor', '--home', home, '--json'], {}, '/');
    expect(ok.status).toBe(0);
    expect(ok.json()).toMatchObject({
      ok: true,
      problems: [],
      schema: { version: LATEST_SCHEMA, latest: LATEST_SCHEMA },
    });
  });
});
