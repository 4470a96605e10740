import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

export const BIN = path.resolve(__dirname, '../../bin/evoflux-memory.js');

/**
 * Where child processes start: outside the checkout, as an agent client or a person starts the
 * compiled entry point, so nothing may depend on the working directory.
 */
export const FOREIGN_CWD = os.tmpdir();

/** Runs the real CLI in a child process, exactly as a person would. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd = FOREIGN_CWD,
): SpawnSyncReturns<string> & { json(): any } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, EVOFLUX_HOME: '', ...env },
    timeout: 60_000,
  });
  return Object.assign(r, { json: () => JSON.parse(r.stdout) });
}
