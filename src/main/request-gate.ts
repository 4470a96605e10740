import { performance } from 'node:perf_hooks';

/**
 * The requests the doors are serving right now (dispatch enters and leaves). Background work on
 * the main thread (index merges) waits for a moment with none in flight, so a step never lands
 * while a request is between its parts (awaiting the read lane, say); under a stream of requests
 * that never pauses it runs anyway after a bounded wait, so the index is never starved.
 */
export class RequestGate {
  private active = 0;
  private waiters: (() => void)[] = [];
  private enterWaiters: (() => void)[] = [];

  /** When the last request in flight left (Date.now()): the start of the current quiet spell. */
  private quietSince = Date.now();

  enter(): void {
    this.active++;
    for (const wake of this.enterWaiters.splice(0)) wake();
  }

  /** Resolves when the next request enters. */
  nextRequest(): Promise<void> {
    return new Promise((resolve) => this.enterWaiters.push(resolve));
  }

  leave(): void {
    this.active = Math.max(0, this.active - 1);
    if (this.active > 0) return;
    this.quietSince = Date.now();
    for (const wake of this.waiters.splice(0)) wake();
  }

  get inFlight(): number {
    return this.active;
  }

  /**
   * For step-by-step background work (runStepByStep's `busy`): null when no request is in flight,
   * else a promise that settles at the next lull (or after `maxWaitMs`, when the caller looks again).
   */
  busy(maxWaitMs: number): Promise<void> | null {
    return this.active > 0 ? this.idle(maxWaitMs) : null;
  }

  /**
   * For step-by-step background work that must not meet a stream of requests at all: null once
   * no request has been in flight for `quietMs`, else a promise that settles when that is so. A
   * step cannot be interrupted, so a request that comes during one waits for it; waiting for a
   * lull keeps steps away from requests that follow each other closely (an agent's first calls).
   */
  busyUntilQuiet(quietMs: number): Promise<void> | null {
    return this.active > 0 || Date.now() - this.quietSince < quietMs ? this.quietFor(quietMs) : null;
  }

  /**
   * Resolves once no request has been in flight for `quietMs` in a row: for one-off work that would
   * hold the event loop for a while (loading a model) and can wait for a lull as long as it takes.
   */
  async quietFor(quietMs: number): Promise<void> {
    for (;;) {
      // At least a millisecond between looks: a wait of 0 would spin while a request is in flight.
      while (this.active > 0) await this.idle(Math.max(quietMs, 1));
      const left = this.quietSince + quietMs - Date.now();
      if (left <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, left).unref());
      // A request that came and went meanwhile moved quietSince: the loop waits out the rest.
    }
  }

  /**
   * Resolves when no request is in flight (at once if none is), or after `maxWaitMs` regardless.
   * The count is checked again after each wake-up: a request may start before the waiter runs.
   */
  async idle(maxWaitMs: number): Promise<void> {
    const deadline = performance.now() + maxWaitMs;
    while (this.active > 0 && performance.now() < deadline) await this.nextLull(deadline - performance.now());
  }

  /** The next time the last request in flight leaves, or `ms` from now, whichever comes first. */
  private nextLull(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        resolve();
      }, ms);
      timer.unref();
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(wake);
    });
  }
}
