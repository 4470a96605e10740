import type { Engine } from './engine';
import { releaseMemoryMap } from './store/db';

/**
 * How long a long-running process must have served no request before it gives memory back. An
 * agent's server is idle for most of its life (the person reads, types, the model thinks); a
 * burst of calls inside one turn is over in well under a second.
 */
export const REST_AFTER_MS = 15_000;

/**
 * Gives back what only serving requests needs: the read-lane workers (each a V8 heap and a page
 * cache; the next recall or search starts one again, answered on the calling thread meanwhile)
 * and the pages of the writer's memory map. What stopped, for the log and tests.
 */
export function rest(engine: Pick<Engine, 'db' | 'readLane'>): { workers: number } {
  const workers = engine.readLane.rest();
  releaseMemoryMap(engine.db);
  return { workers };
}

/**
 * After every spell of `quietMs` without a request, rests once; then waits for the next request
 * before counting again, so an idle process rests once, not every `quietMs`.
 */
export function restWhenQuiet(engine: Engine, quietMs = REST_AFTER_MS): void {
  let closed = false;
  engine.onClose(() => void (closed = true));
  void (async () => {
    for (;;) {
      await engine.requests.quietFor(quietMs);
      if (closed) return;
      const { workers } = rest(engine);
      engine.log.debug(`quiet for ${quietMs / 1000} s: resting (${workers} read-lane worker(s) stopped)`);
      await engine.requests.nextRequest();
      if (closed) return;
    }
  })();
}
