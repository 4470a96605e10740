import { Worker } from 'node:worker_threads';
import { observeWriteTransactions, type Db } from '../store/db';
import type { CheckpointResult } from '../store/wal-checkpoint';
import { workerFile } from './worker-file';
import { compileCacheArgv, launcherCompileCache } from './launch';
import type { CheckpointReply, CheckpointWorkerData } from './wal-checkpoint-protocol';

/**
 * Write transactions between two background checkpoints. A turn's write dirties ~18 pages (its
 * messages, their index rows and FTS5's new segment), so a checkpoint copies ~2 MB off the main
 * thread, and the WAL starts over long before the writer's own automatic checkpoint (at ~12 MB)
 * would copy it all inside a request: ~100 ms on the main thread once every ~170 turns at 100k
 * facts, measured before this ran. Pages that every transaction rewrites (index roots, FTS5's
 * structure) are copied once per checkpoint, so fewer, larger checkpoints copy less in all.
 */
export const WRITES_PER_CHECKPOINT = 32;
/** A write transaction this long (ms) wrote a lot (a batch): a checkpoint is due after it at once. */
export const LONG_WRITE_MS = 20;

const MAX_EXITS = 3;
/** A log this long (frames, ~4 MB) that a checkpoint left behind is chased (see chase). */
const CHASE_FRAMES = 1024;
const MAX_CHASES = 4;

/** When a checkpoint is due: after this many write transactions, or after one that took this long. */
export interface CheckpointCadence {
  writes: number;
  longWriteMs: number;
}

export interface CheckpointStats {
  /** Checkpoints run since the process started (busy ones included). */
  runs: number;
  failures: number;
  /** The last one's duration in its thread, ms. */
  lastMs: number | null;
  last: CheckpointResult | null;
  lastError: string | null;
}

/** What the checkpointer needs of the engine: its writer, a log, and a say in its closing. */
export interface CheckpointHost {
  db: Db;
  log: { warn(message: string): void };
  onClose(fn: () => Promise<void> | void): void;
}

/**
 * Copies the WAL back into memory.db from a worker thread of its own, every
 * `WRITES_PER_CHECKPOINT` write transactions of the writer or after a long one, one checkpoint at
 * a time. The writer
 * keeps its automatic checkpoint as a backstop (a burst faster than the worker); it then finds
 * most frames already copied. The thread starts at the first checkpoint and stops when the
 * process rests. Without the worker file (a broken install) it says so once and the writer's own
 * checkpoints do the work, as before.
 */
export class BackgroundCheckpoints {
  private worker: Worker | null = null;
  private inFlight: Promise<void> | null = null;
  private writes = 0;
  /** A write since the last checkpoint began made the next one due. */
  private owed = false;
  /** Checkpoints run in a row to catch up with a long log (see chase). */
  private chases = 0;
  private nextId = 0;
  /** Threads that exited in a row without answering: a thread that cannot start is not started forever. */
  private exits = 0;
  private closed = false;
  private unavailable = false;
  private stopObserving: () => void = () => {};
  readonly stats: CheckpointStats = { runs: 0, failures: 0, lastMs: null, last: null, lastError: null };

  constructor(
    private readonly host: CheckpointHost,
    private readonly data: CheckpointWorkerData,
    private readonly cadence: CheckpointCadence = { writes: WRITES_PER_CHECKPOINT, longWriteMs: LONG_WRITE_MS },
  ) {}

  start(): this {
    this.stopObserving = observeWriteTransactions((ms, db) => {
      if (db !== this.host.db) return;
      if (++this.writes >= this.cadence.writes || ms >= this.cadence.longWriteMs) this.owed = true;
      if (this.owed && !this.inFlight) void this.checkpoint();
    });
    this.host.onClose(() => this.close());
    return this;
  }

  /** A checkpoint now, or the one in flight; resolves when it is done (it never rejects). */
  checkpoint(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    if (this.closed || this.unavailable) return Promise.resolve();
    this.writes = 0;
    this.owed = false;
    this.inFlight = this.run().finally(() => {
      this.inFlight = null;
      // Writes that came while it ran may already owe the next one.
      if (this.owed) void this.checkpoint();
    });
    return this.inFlight;
  }

  /** Whether a checkpoint is running now. */
  get busy(): boolean {
    return this.inFlight !== null;
  }

  /** Resolves once no checkpoint is in flight. */
  async settled(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  /** Stops the thread when no checkpoint runs (the next one starts it again); whether it stopped one. */
  rest(): boolean {
    if (!this.worker || this.inFlight) return false;
    void this.worker.terminate();
    this.worker = null;
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopObserving();
    await this.settled();
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private run(): Promise<void> {
    const worker = this.thread();
    if (!worker) return Promise.resolve();
    const id = ++this.nextId;
    return new Promise<void>((resolve) => {
      const done = (reply: CheckpointReply | { ok: false; error: string; ms: null }) => {
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        this.record(reply);
        resolve();
      };
      const onMessage = (reply: CheckpointReply) => {
        if (reply.id !== id) return;
        this.exits = 0;
        done(reply);
      };
      const onExit = (code: number) => {
        if (this.worker === worker) this.worker = null;
        if (++this.exits >= MAX_EXITS) this.unavailable = true;
        done({ ok: false, error: `checkpoint thread exited (code ${code})`, ms: null });
      };
      worker.on('message', onMessage);
      worker.on('exit', onExit);
      worker.postMessage(id);
    });
  }

  /**
   * The WAL starts over only when a write begins after a checkpoint copied all of it. Under writes
   * that come faster than a checkpoint of WRITES_PER_CHECKPOINT of them (turns back to back), each
   * one ends with new frames behind it (its count of frames is the log as it began) and the log
   * grows on to the writer's own checkpoint. So while the log is long, the next runs at once: it
   * copies only the frames written meanwhile, finishes sooner, and a write then finds the log
   * copied. A few times in a row at most (a reader holding an old snapshot keeps the log long).
   */
  private chase(result: CheckpointResult): void {
    this.chases = result.walFrames >= CHASE_FRAMES && this.chases < MAX_CHASES ? this.chases + 1 : 0;
    if (this.chases > 0) this.owed = true;
  }

  private record(reply: CheckpointReply | { ok: false; error: string; ms: null }): void {
    this.stats.runs++;
    this.stats.lastMs = reply.ms;
    if (reply.ok) {
      this.stats.last = reply.result;
      this.stats.lastError = null;
      this.chase(reply.result);
      return;
    }
    this.stats.failures++;
    this.stats.lastError = reply.error;
    // The writer's own checkpoints still bound the WAL: say it, without filling the log.
    if (this.stats.failures === 1 || this.stats.failures % 100 === 0) {
      this.host.log.warn(`background WAL checkpoint failed (${this.stats.failures} so far): ${reply.error}`);
    }
  }

  private thread(): Worker | null {
    if (this.worker) return this.worker;
    let file: ReturnType<typeof workerFile>;
    try {
      file = workerFile('wal-checkpoint.worker', 'background WAL checkpoints');
    } catch (e) {
      this.unavailable = true;
      this.stats.lastError = (e as Error).message;
      this.host.log.warn(`${(e as Error).message}; the writer checkpoints the WAL itself`);
      return null;
    }
    const worker = new Worker(file.file, {
      execArgv: [...file.execArgv, ...compileCacheArgv(launcherCompileCache())],
      workerData: this.data,
    });
    // An idle checkpointer never keeps a process alive; one that is cut off mid-copy loses
    // nothing (the WAL keeps every frame until a checkpoint completes).
    worker.unref();
    worker.on('error', (e) => (this.stats.lastError = e.message));
    return (this.worker = worker);
  }
}
