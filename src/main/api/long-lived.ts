import type { Engine } from '../engine';
import { loadEnglish } from '../memory/extraction/nlp';
import { restWhenQuiet } from '../rest-when-quiet';

/** How long the doors must have been idle before the extractor's English model is loaded. */
const QUIET_BEFORE_MODEL_MS = 1_000;

/**
 * What a process serving agents prepares in the background: a warm read lane (its first recall
 * should not pay for starting a worker), and the rule extractor's English model, whose load holds
 * the event loop for ~0.2 s and takes ~40 MB: loaded on demand, it would stall whichever turn
 * first triggered extraction. Extraction follows completed responses (the third, then every
 * tenth), so the model is loaded after the first one, in the first second the doors are idle; a
 * process that never completes a turn (search and recall only) never loads it. Once no request
 * has come for a while, the process rests (rest-when-quiet.ts) and warms again on the next one.
 */
export function warmInBackground(engine: Engine): void {
  engine.readLane.warm();
  restWhenQuiet(engine);
  if (!engine.settings.extraction.enabled) return;
  const stop = engine.events.on('response-completed', () => {
    stop();
    void engine.requests
      .quietFor(QUIET_BEFORE_MODEL_MS)
      .then(loadEnglish)
      .catch((e: Error) => engine.log.warn(`extraction: English model not preloaded: ${e.message}`));
  });
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
