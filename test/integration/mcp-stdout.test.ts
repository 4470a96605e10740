import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, FOREIGN_CWD } from '../helpers/cli';
import { testResources } from '../helpers/home';

const res = testResources();
afterEach(() => res.release());

const request = (id: number, method: string, params: unknown = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('mcp keeps stdout for the protocol', () => {
  it('logs (settings problems, start-up, errors) go to stderr and the log file, never stdout', async () => {
    const home = res.home();
    writeFileSync(path.join(home, 'settings.yaml'), 'dream: {maxSourcesPerRun: twenty}\n');
    const child = spawn(process.execPath, [BIN, 'mcp', '--home', home], {
      cwd: FOREIGN_CWD,
      env: { ...process.env, EVOFLUX_HOME: '', EVOFLUX_LOG_LEVEL: 'debug' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const answered = (id: number) =>
      new Promise<void>((resolve, reject) => {
        const check = () => (out.includes(`"id":${id}`) ? resolve() : undefined);
        child.stdout.on('data', check);
        child.once('exit', (code) => reject(new Error(`mcp exited (${code}): ${err}`)));
        check();
      });
    child.stdin.write(
      request(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }) + '\n',
    );
    await answered(1);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    child.stdin.write(request(2, 'tools/list') + '\n');
    child.stdin.write(
      request(3, 'tools/call', { name: 'memory_recall', arguments: { sessionId: 'nope', text: 'a b c' } }) + '\n',
    );
    await answered(3);
    const exited = new Promise((done) => child.once('exit', done));
    child.stdin.end();
    expect(await exited).toBe(0);

    for (const line of out.trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(err).toContain('dream.maxSourcesPerRun');
    const log = readFileSync(path.join(home, 'logs', 'evoflux.log'), 'utf8');
    expect(log).toMatch(new RegExp(`WARN  mcp\\[${child.pid}\\] settings: .*dream\\.maxSourcesPerRun`));
    expect(log).toMatch(new RegExp(`INFO  mcp\\[${child.pid}\\] mcp: serving \\d+ tools on stdio`));
    expect(log).toMatch(new RegExp(`INFO  mcp\\[${child.pid}\\] engine closed`));
  });
});
