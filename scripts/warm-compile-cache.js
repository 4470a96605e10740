#!/usr/bin/env node
'use strict';
// The last step of `npm run build`: runs the compiled CLI the way it is used most (a one-shot
// `sessions list`, an MCP server answering `tools/list`, with and without the flags the README's
// client configurations start it with, which get caches of their own) in a throw-away data home,
// so the V8 compile cache of the new bundle (bin/compile-cache.js) is written now, holding the
// functions they ran, instead of by a user's first command. Best effort: where the CLI cannot run
// yet (no native SQLite build) it says so and the build still succeeds; the first run writes it.
const { spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const BIN = path.join(__dirname, '..', 'bin', 'evoflux-memory.js');
const { SERVER_NODE_FLAGS } = require('../bin/server-flags');

const mcpSession = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'warm-up', version: '0' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
]
  .map((m) => JSON.stringify(m) + '\n')
  .join('');

function run(args, home, input, nodeFlags = []) {
  return spawnSync(process.execPath, [...nodeFlags, BIN, ...args, '--home', home], {
    cwd: os.tmpdir(),
    input,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, EVOFLUX_HOME: '', EVOFLUX_COMPILE_CACHE: 'refresh' },
  });
}

const home = mkdtempSync(path.join(os.tmpdir(), 'evoflux-warm-'));
try {
  const list = run(['sessions', 'list', '--json'], home);
  const mcp = list.status === 0 ? run(['mcp', '--project', 'warm-up'], home, mcpSession) : null;
  const configured =
    mcp?.status === 0 ? run(['mcp', '--project', 'warm-up'], home, mcpSession, SERVER_NODE_FLAGS) : null;
  const failed = [list, mcp, configured].find((r) => r?.status !== 0);
  if (failed !== undefined) {
    const why = failed.stderr?.trim().split('\n').pop() ?? 'no output';
    console.log(`compile cache not written now (the first run will write it): ${why}`);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
