import type { Engine } from '../engine';

interface Startable {
  start(): unknown;
  stop?(): unknown;
}

const isStartable = (v: unknown): v is Startable =>
  typeof v === 'object' && v !== null && typeof (v as Startable).start === 'function';

/**
 * Starts what only a long-running process (serve, the desktop app) should run — the Dream
 * scheduler — and returns its stopper; one-shot CLI commands never start it. Looked up by
 * shape because the Dream service is optional in the engine.
 */
export function startLongLivedServices(engine: Engine): () => Promise<void> {
  const dream = (engine as unknown as { dream?: { scheduler?: unknown } }).dream;
  const scheduler = isStartable(dream?.scheduler) ? dream.scheduler : isStartable(dream) ? dream : null;
  scheduler?.start();
  return async () => {
    await scheduler?.stop?.();
  };
}
