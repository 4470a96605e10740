#!/usr/bin/env node
'use strict';
// The last step of `npm run build`: runs the compiled CLI the way it is used most (a one-shot
// `sessions list`, and an MCP server through an agent's turn: a session, two remembered facts,
// begin turn, search, recall, complete turn), the server with and without the flags the README's
// client configurations start it with (each set gets caches of its own), in a throw-away data
// home, so the V8 compile cache of the new bundle (bin/compile-cache.js) is written now, holding
// the functions they ran, instead of by a user's first command. The server runs three times: from
// the second on the home holds facts, so its read-lane worker warms up on them and its cache holds
// the ranking code too. Best effort: where the CLI cannot run yet (no native SQLite build) it says
// so and the build still succeeds; the first run writes it.
const { spawn, spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const BIN = path.join(__dirname, '..', 'bin', 'evoflux-memory.js');
const { SERVER_NODE_FLAGS } = require('../bin/server-flags');
const ENV = { ...process.env, EVOFLUX_HOME: '', EVOFLUX_COMPILE_CACHE: 'refresh' };
const TIMEOUT_MS = 60_000;
/** Longer than the read-lane worker's wait for a lull before it primes its searches, plus that priming. */
const PRIME_LULL_MS = 600;

function cli(args, home) {
  const r = spawnSync(process.execPath, [BIN, ...args, '--home', home], {
    cwd: os.tmpdir(),
    encoding: 'utf8',
    timeout: TIMEOUT_MS,
    env: ENV,
  });
  if (r.status !== 0) throw new Error(r.stderr?.trim().split('\n').pop() || `${args[0]} exited with ${r.status}`);
}

/** One agent session against `mcp`, each request sent once the one before is answered. */
async function agentTurn(home, run, nodeFlags) {
  const child = spawn(process.execPath, [...nodeFlags, BIN, 'mcp', '--project', 'warm-up', '--home', home], {
    cwd: os.tmpdir(),
    env: ENV,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on('close', resolve));
  const answers = new Map();
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    answers.get(message.id)?.(message);
  });
  let nextId = 0;
  const send = (message) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      answers.set(id, (m) => (m.error || m.result?.isError ? reject(new Error(JSON.stringify(m))) : resolve(m.result)));
      send({ id, method, params });
    });
  const call = (name, args) => request('tools/call', { name, arguments: args });
  const timer = setTimeout(() => child.kill(), TIMEOUT_MS);
  try {
    await Promise.race([
      (async () => {
        await request('initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'warm-up', version: '0' },
        });
        send({ method: 'notifications/initialized' });
        await request('tools/list', {});
        const created = await call('memory_create_session', { projectId: 'warm-up', title: 'compile cache warm-up' });
        const sessionId = created.structuredContent.id;
        await call('memory_remember', { sessionId, text: `Release ${run} ships with make release.`, scope: 'project' });
        await call('memory_remember', { sessionId, text: `Warm-up run ${run} prefers short answers.`, scope: 'user' });
        await call('memory_begin_turn', { sessionId, userText: 'How does a release ship?' });
        await call('memory_search', { sessionId, query: 'release ships' });
        await call('memory_recall', { sessionId, text: 'short answers' });
        await call('memory_complete_turn', { sessionId, assistantText: 'With make release.' });
        // The read-lane worker primes its searches, and then saves its cache, only once no request
        // has come for a moment (src/main/workers/prime-order.ts): give it that moment.
        await new Promise((resolve) => setTimeout(resolve, PRIME_LULL_MS));
      })(),
      exited.then(() => Promise.reject(new Error(stderr.trim().split('\n').pop() || 'mcp exited'))),
    ]);
  } finally {
    child.stdin.end();
    await exited;
    clearTimeout(timer);
  }
}

async function main() {
  const home = mkdtempSync(path.join(os.tmpdir(), 'evoflux-warm-'));
  try {
    cli(['sessions', 'list', '--json'], home);
    await agentTurn(home, 1, []);
    await agentTurn(home, 2, SERVER_NODE_FLAGS);
    await agentTurn(home, 3, []);
  } catch (e) {
    console.log(`compile cache not written now (the first run will write it): ${e.message}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

void main();
