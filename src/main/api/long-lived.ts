import type { Engine } from '../engine';

/**
 * Starts what only a long-running process (serve, the desktop app, `mcp --schedule`) should
 * run — the Dream scheduler — and returns its stopper; one-shot CLI commands never start it.
 * Stopping waits for a run in flight (engine.close() stops it too, so either order is safe).
 */
export function startLongLivedServices(engine: Engine): () => Promise<void> {
  engine.dream.start();
  return () => engine.dream.stop();
}
