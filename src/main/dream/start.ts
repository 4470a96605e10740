import type { Engine } from '../engine';

/**
 * Starts the Dream scheduler for a long-lived engine (the Electron app, `serve`). One-shot CLI
 * commands never call this. Stopping is already registered with engine.onClose.
 */
export function startDreamScheduler(engine: Engine): void {
  engine.dream.start();
}
