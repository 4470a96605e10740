import type { Engine } from '../engine';
import { loadEnglish } from '../memory/extraction/nlp';

/** How long the doors must have been idle before the extractor's English model is loaded. */
const QUIET_BEFORE_MODEL_MS = 1_000;

/**
 * What a process serving agents prepares in the background: a warm read lane (its first recall
 * should not pay for starting a worker), and, once the doors have been idle for a second, the
 * rule extractor's English model, whose ~0.2 s load holds the event loop: loaded on demand, it
 * would stall whichever turn first triggered extraction.
 */
export function warmInBackground(engine: Engine): void {
  engine.readLane.warm();
  if (!engine.settings.extraction.enabled) return;
  void engine.requests
    .quietFor(QUIET_BEFORE_MODEL_MS)
    .then(loadEnglish)
    .catch((e: Error) => engine.log.warn(`extraction: English model not preloaded: ${e.message}`));
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
