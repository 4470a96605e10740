import { observeWriteTransactions, passiveCheckpoint, type CheckpointResult, type Db } from './store/db';
import type { RequestGate } from './request-gate';

/**
 * Write transactions between two checkpoints. A turn's write dirties ~18 pages (its messages,
 * their index rows and FTS5's new segment), so a checkpoint copies ~2 MB in ~8-10 ms at 100k
 * facts, between two requests, and the WAL starts over long before the writer's own automatic
 * checkpoint (at ~12 MB) copies it all inside some request's commit: ~100 ms on the main thread
 * once every ~170 turns, measured before this ran. Pages every transaction rewrites (index roots,
 * FTS5's structure) are copied once per checkpoint, so fewer, larger ones copy less in all.
 */
export const WRITES_PER_CHECKPOINT = 32;
/** A write transaction this long (ms) wrote a lot (a batch): a checkpoint is due after it. */
export const LONG_WRITE_MS = 20;
/**
 * How long no request must have been in flight before a due checkpoint runs. An agent's calls
 * come seconds apart (the model thinks between them), so one runs in the first pause; among calls
 * that come back to back, one in every 32 writes would wait ~10 ms behind one (at 100k facts).
 */
export const QUIET_MS = 100;

/**
 * When a checkpoint is due (after this many write transactions, or after one that took this long)
 * and when it runs (once no request has been in flight for `quietMs`).
 */
export interface CheckpointCadence {
  writes: number;
  longWriteMs: number;
  quietMs: number;
}

export interface CheckpointStats {
  /** Checkpoints run since the process started (busy ones included). */
  runs: number;
  failures: number;
  /** How long the last one held the main thread, ms. */
  lastMs: number | null;
  last: CheckpointResult | null;
  lastError: string | null;
}

/** What the checkpoints need of the engine: the writer, the requests in flight, a log, its closing. */
export interface CheckpointHost {
  db: Db;
  requests: Pick<RequestGate, 'busyUntilQuiet'>;
  log: { warn(message: string): void };
  onClose(fn: () => Promise<void> | void): void;
}

/**
 * Copies the WAL back into memory.db in the pauses between requests: a passive checkpoint on the
 * writer once `cadence.writes` write transactions (or one long one) have committed since the last,
 * run once no request has been in flight for `cadence.quietMs`, however long that takes. Under a
 * stream of requests that never pauses, the writer's own automatic checkpoint still bounds the
 * WAL (inside some commit, as SQLite does by default). Nothing else writes meanwhile (the writer
 * is this thread's), so a checkpoint copies the whole log and the next write starts it over.
 *
 * A thread of its own would hold up no request even in such a stream, and was measured: every
 * thread a process starts leaves its allocator arena behind, ~1.7 MB more resident at rest for an
 * agent's server, which spends most of its life at rest between calls seconds apart.
 */
export class WalCheckpoints {
  private pending: Promise<void> | null = null;
  private writes = 0;
  /** A write since the last checkpoint made the next one due. */
  private owed = false;
  private closed = false;
  private stopObserving: () => void = () => {};
  readonly stats: CheckpointStats = { runs: 0, failures: 0, lastMs: null, last: null, lastError: null };

  constructor(
    private readonly host: CheckpointHost,
    private readonly cadence: CheckpointCadence = {
      writes: WRITES_PER_CHECKPOINT,
      longWriteMs: LONG_WRITE_MS,
      quietMs: QUIET_MS,
    },
  ) {}

  start(): this {
    this.stopObserving = observeWriteTransactions((ms, db) => {
      if (db !== this.host.db) return;
      if (++this.writes >= this.cadence.writes || ms >= this.cadence.longWriteMs) this.owed = true;
      if (this.owed && !this.pending) this.schedule();
    });
    this.host.onClose(() => this.close());
    return this;
  }

  /** Resolves once no checkpoint is due or waiting for a quiet spell. */
  async settled(): Promise<void> {
    while (this.pending) await this.pending;
  }

  /**
   * No more checkpoints. One waiting for a quiet spell is dropped where it waits (it copies
   * nothing once closed), so a process never waits to exit for one, and none runs mid-way: a
   * checkpoint runs on this thread from start to end.
   */
  close(): void {
    this.closed = true;
    this.stopObserving();
  }

  private schedule(): void {
    this.pending = this.afterRequests()
      .then(() => this.run())
      .finally(() => {
        this.pending = null;
        if (this.owed && !this.closed) this.schedule();
      });
  }

  /** After the request that wrote has answered, once none has been in flight for a while. */
  private async afterRequests(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    for (let wait; !this.closed && (wait = this.host.requests.busyUntilQuiet(this.cadence.quietMs));) await wait;
  }

  private run(): void {
    const { db } = this.host;
    this.writes = 0;
    this.owed = false;
    // Closing, or inside someone's transaction: the next write makes one due again.
    if (this.closed || !db.open || db.inTransaction) return;
    const started = performance.now();
    this.stats.runs++;
    try {
      this.stats.last = passiveCheckpoint(db);
      this.stats.lastError = null;
    } catch (e) {
      this.stats.failures++;
      this.stats.lastError = (e as Error).message;
      // The writer's own checkpoints still bound the WAL: say it, without filling the log.
      if (this.stats.failures === 1 || this.stats.failures % 100 === 0) {
        this.host.log.warn(`WAL checkpoint failed (${this.stats.failures} so far): ${this.stats.lastError}`);
      }
    } finally {
      this.stats.lastMs = performance.now() - started;
    }
  }
}
