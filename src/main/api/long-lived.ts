import type { Engine } from '../engine';
import { restWhenQuiet } from '../rest-when-quiet';

/**
 * What a process serving agents prepares in the background: a warm read lane (its first recall
 * should not pay for starting a worker). Once no request has come for a while, the process rests
 * (rest-when-quiet.ts) and warms again on the next one. The rule extractor's English model is not
 * loaded here: it lives in the extractor's own child process (workers/extraction-process.ts),
 * which the first extraction starts, away from the thread that answers agents.
 */
export function warmInBackground(engine: Engine): void {
  engine.readLane.warm();
  restWhenQuiet(engine);
}

/**
 * Starts what only a long-running process (serve, the desktop app, `mcp --schedule`) should
 * run — the Dream scheduler, a warm read lane, extraction over imported conversations — and returns its stopper; one-shot CLI commands never start it.
 * Stopping waits for a run in flight (engine.close() stops it too, so either order is safe).
 */
export function startLongLivedServices(engine: Engine): () => Promise<void> {
  warmInBackground(engine);
  engine.dream.start();
  // Imported conversations still owed extraction (an import that ran here, or one a CLI run left).
  engine.historyImport.extraction.startBackground();
  return () => engine.dream.stop();
}
