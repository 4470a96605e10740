import { existsSync, readdirSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

/** What `npm run build` writes and the tests run: the CLI (serve, mcp), its worker, the window. */
const OUTPUTS = ['out/main/cli.js', 'out/main/read-lane.worker.js', 'out/main/index.js', 'out/renderer/index.html'];
const SOURCES = ['src', 'electron.vite.config.ts', 'package.json'];

function newestMtime(file: string): number {
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(file)) newest = Math.max(newest, newestMtime(path.join(file, entry)));
  return newest;
}

/**
 * Tests run the compiled entry points, as users do. `npm test` builds first; a lone
 * `npx vitest run test/...` builds here when an output is missing or older than any source.
 */
export function ensureBuilt(): void {
  const sources = Math.max(...SOURCES.map((s) => newestMtime(path.join(ROOT, s))));
  const fresh = OUTPUTS.every((o) => existsSync(path.join(ROOT, o)) && statSync(path.join(ROOT, o)).mtimeMs >= sources);
  if (fresh) return;
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (r.status !== 0) throw new Error(`electron-vite build failed:\n${r.stdout}\n${r.stderr}`);
}
