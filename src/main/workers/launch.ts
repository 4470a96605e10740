import type { Worker } from 'node:worker_threads';

/**
 * The launcher's compile cache (bin/compile-cache.js) for a worker thread's own code: the module a
 * worker is started with (`--require`), which installs it for the bundle in `dir`.
 */
export interface CompileCacheRef {
  preload: string;
  dir: string;
  /** The launcher's Node flags, which apply to its workers too (and name their caches). */
  launcherArgv: string[];
}

/** A worker's Node options that install the launcher's compile cache; none without a launcher. */
export const compileCacheArgv = (ref: CompileCacheRef | undefined): string[] => (ref ? ['--require', ref.preload] : []);

interface PrestartedWorker {
  worker: Worker | null;
  failed: Error | null;
}

/**
 * What bin/evoflux-memory.js set up before it loaded the bundle: its compile cache and, for `mcp`
 * and `serve`, a read-lane worker already booting (bin/read-lane-prestart.js). Absent in the
 * desktop app and under the tests' TypeScript loader, where workers start as usual.
 */
interface Launch {
  compileCache?: CompileCacheRef;
  readLaneWorker?: PrestartedWorker | null;
}

const launch = (): Launch =>
  (globalThis as Record<symbol, Launch | undefined>)[Symbol.for('evoflux-memory.launch')] ?? {};

export const launcherCompileCache = (): CompileCacheRef | undefined => launch().compileCache;

/** The launcher's read-lane worker, once: null when there is none or it failed to start. */
export function takePrestartedWorker(): Worker | null {
  const state = launch();
  const prestarted = state.readLaneWorker;
  state.readLaneWorker = null;
  if (!prestarted?.worker) return null;
  if (prestarted.failed) {
    void prestarted.worker.terminate();
    return null;
  }
  return prestarted.worker;
}
