import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import path from 'node:path';

export const BIN = path.resolve(__dirname, '../../bin/evoflux-memory.js');

/** Runs the real CLI in a child process, exactly as a person would. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> & { json(): any } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVOFLUX_HOME: '', ...env },
    timeout: 60_000,
  });
  return Object.assign(r, { json: () => JSON.parse(r.stdout) });
}
