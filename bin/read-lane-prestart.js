'use strict';
// `mcp` and `serve` answer an agent's first recall a few hundred milliseconds after they start.
// Their read-lane worker needs ~0.1-0.2 s to boot a thread and load its code, and the engine that
// owns the read lane exists only once the bundle has loaded and the store is open (~0.3 s in): a
// worker started then was still priming when the first requests came, which ran on the main
// thread's cold code instead. So the launcher starts the first worker before it loads the bundle,
// on the other core; it waits for the data home's paths, which the read lane hands it when it
// adopts it (src/main/workers/launch.ts).
const { Worker } = require('node:worker_threads');
const path = require('node:path');

/** Commands whose first argument names a long-running server with a read lane. */
const PRESTART_COMMANDS = new Set(['mcp', 'serve']);

/**
 * A worker booting in the background for the read lane to adopt, or null for other commands. A
 * worker that fails to start is recorded (the lane then starts its own); unadopted, it never keeps
 * the process alive.
 */
function prestartReadLaneWorker(outDir, args, compileCache) {
  if (!PRESTART_COMMANDS.has(args[0])) return null;
  const prestarted = { worker: null, failed: null };
  try {
    prestarted.worker = new Worker(path.join(outDir, 'read-lane.worker.js'), {
      execArgv: ['--require', compileCache.preload],
      workerData: { prestarted: true, compileCache },
    });
  } catch (e) {
    return null;
  }
  prestarted.worker.on('error', (e) => (prestarted.failed ??= e));
  prestarted.worker.on('exit', (code) => (prestarted.failed ??= new Error(`exit code ${code}`)));
  prestarted.worker.unref();
  return prestarted;
}

module.exports = { prestartReadLaneWorker };
