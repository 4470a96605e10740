/** A FIFO async mutex for callers inside one process (the file lock serialises processes). */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private held = false;

  get locked(): boolean {
    return this.held;
  }

  /** Waits for the mutex, then runs fn; the next waiter starts when fn settles. */
  async run<T>(fn: () => Promise<T> | T): Promise<T> {
    let release!: () => void;
    const previous = this.tail;
    this.tail = new Promise<void>((r) => (release = r));
    await previous;
    this.held = true;
    try {
      return await fn();
    } finally {
      this.held = false;
      release();
    }
  }

  /** Runs fn only if nobody holds or waits for the mutex; otherwise returns `busy` at once. */
  async tryRun<T, B>(fn: () => Promise<T> | T, busy: B): Promise<T | B> {
    if (this.held) return busy;
    return this.run(fn);
  }
}
