import type { Engine } from '../engine';

/**
 * Starts what only a long-running process (serve, the desktop app, `mcp --schedule`) should
 * run — the Dream scheduler, a warm read lane, extraction over imported conversations — and returns its stopper; one-shot CLI commands never start it.
 * Stopping waits for a run in flight (engine.close() stops it too, so either order is safe).
 */
export function startLongLivedServices(engine: Engine): () => Promise<void> {
  // The first recall should not pay for starting a worker and opening its connection.
  engine.readLane.warm();
  engine.dream.start();
  // Imported conversations still owed extraction (an import that ran here, or one a CLI run left).
  engine.historyImport.extraction.startBackground();
  return () => engine.dream.stop();
}
