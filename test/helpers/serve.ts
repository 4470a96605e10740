import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { BIN, FOREIGN_CWD } from './cli';

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** The home's bearer token. */
  token: string;
  /** Everything the process wrote to stderr. */
  stderr(): string;
  /** POSTs a contract command with the home's token; resolves with the status and JSON body. */
  call(name: string, input: unknown): Promise<{ status: number; body: any }>;
  /** SIGTERM, then the exit code once the process has closed its database. */
  stop(): Promise<number | null>;
}

/**
 * Starts the real `evoflux-memory serve --port 0 --json` on a home, from a folder outside the
 * checkout as a person would, and waits for its address.
 */
export async function startServe(home: string): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--home', home, '--port', '0', '--json'], {
    cwd: FOREIGN_CWD,
    env: { ...process.env, EVOFLUX_HOME: '' },
  });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const info = await new Promise<{ url: string; tokenFile: string }>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const line = out.split('\n').find((l) => l.trim().startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  const token = readFileSync(info.tokenFile, 'utf8').trim();
  return {
    child,
    url: info.url,
    token,
    stderr: () => err,
    call: async (name, input) => {
      const res = await fetch(`${info.url}/api/commands/${name}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      return { status: res.status, body: await res.json() };
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}
