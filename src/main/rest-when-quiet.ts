import type { Engine } from './engine';
import { releaseMemoryMap } from './store/db';

/**
 * How long a long-running process must have served no request before it gives memory back. An
 * agent's server is idle for most of its life (the person reads, types, the model thinks); a
 * burst of calls inside one turn is over in well under a second.
 */
export const REST_AFTER_MS = 15_000;

type Collect = () => void;

/**
 * Full collections of this thread's V8 heap, where Node exposes them (`--expose-gc`, one of the
 * flags the README's client configurations pass). V8 collects the old generation only while the
 * thread allocates, so a burst of calls leaves an idle server with a grown, half-empty heap until
 * its next busy spell. The second collection gives back pages the first only emptied (measured:
 * one leaves ~1.5 MB more resident). Whether it ran.
 */
export function compactHeap(collect: Collect | undefined = (globalThis as { gc?: Collect }).gc): boolean {
  if (typeof collect !== 'function') return false;
  collect();
  collect();
  return true;
}

/**
 * Gives back what only serving requests needs: the read-lane workers (each a V8 heap and a page
 * cache; the next recall or search starts one again, answered on the calling thread meanwhile),
 * the rule extractor's child process with its English model (the next extraction starts it
 * again), the pages of the writer's memory map and the heap's empty pages. What it did, for the
 * log and tests.
 */
export function rest(engine: Pick<Engine, 'db' | 'readLane' | 'extractionProcess'>): {
  workers: number;
  heapCompacted: boolean;
} {
  const workers = engine.readLane.rest() + (engine.extractionProcess.rest() ? 1 : 0);
  releaseMemoryMap(engine.db);
  return { workers, heapCompacted: compactHeap() };
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
      const { workers, heapCompacted } = rest(engine);
      engine.log.debug(
        `quiet for ${quietMs / 1000} s: resting (${workers} worker(s) stopped${heapCompacted ? ', heap compacted' : ''})`,
      );
      await engine.requests.nextRequest();
      if (closed) return;
    }
  })();
}
