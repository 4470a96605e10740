import { spawn } from 'node:child_process';
import path from 'node:path';

/** Runs test/fixtures/dream-child.ts in a real child process and follows its output. */
export const CHILD = path.resolve(__dirname, '../fixtures/dream-child.ts');

export function child(args: string[]) {
  const p = spawn(process.execPath, ['--require', 'tsx/cjs', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => p.on('exit', (code) => resolve(code)));
  const line = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => out.includes(text) && resolve();
      p.stdout.on('data', check);
      p.on('exit', () => reject(new Error(`child exited before "${text}": ${err}`)));
      check();
    });
  return { proc: p, exited, line, output: () => out, errors: () => err };
}
