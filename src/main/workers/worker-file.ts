import { existsSync } from 'node:fs';
import path from 'node:path';
import { CommandError } from '../../shared/errors';

/**
 * Where a worker's code is (a worker thread's, or the extractor's child process's), and the Node
 * options it needs, for the worker `name` (e.g. `read-lane.worker`; `what` names it in the error
 * when it is missing). Each worker file sits next to this code. Bundled by electron-vite, this is
 * out/main/*.js (or a chunk one folder below) with the worker built beside it. Under the
 * TypeScript loader (tests and benches only) both are .ts and the worker loads through tsx's
 * require hook, named by an absolute path resolved from this file: a bare `--require tsx/cjs`
 * would be resolved from the working directory and fail anywhere but the checkout.
 */
export function workerFile(name: string, what: string): { file: string; execArgv: string[] } {
  if (__filename.endsWith('.ts')) {
    const loader = 'tsx/cjs';
    return { file: path.join(__dirname, `${name}.ts`), execArgv: ['--require', require.resolve(loader)] };
  }
  const candidates = [path.join(__dirname, `${name}.js`), path.join(__dirname, '..', `${name}.js`)];
  const file = candidates.find((f) => existsSync(f));
  if (!file) {
    throw new CommandError('unavailable', `${what}: worker file missing next to ${__dirname}; run \`npm run build\``);
  }
  return { file, execArgv: [] };
}
