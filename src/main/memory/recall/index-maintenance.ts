import type { Engine } from '../../engine';
import { truncateWal, writeTx, type Db } from '../../store/db';

/**
 * Keeps the recall and dialogue FTS5 indexes compact. FTS5's automerge leaves an index as a
 * stack of segments (one per write transaction, merged in fours), and every lookup probes each
 * segment: after bulk growth a lookup costs a few times what it does on a merged index. So after
 * writes settle, the engine runs FTS5's incremental 'merge' with a negative page budget (merge
 * across levels, as 'optimize' does, but bounded), one short write transaction per step, until a
 * step finds nothing left to merge. Steps yield to the event loop in between.
 *
 * After a forget, the same pass finishes the forget's clean-up: it purges the forgotten facts'
 * index rows, merges, and then checkpoints and truncates the WAL, whose older page images still
 * hold the forgotten rows (memory.db itself zeroes deleted content: secure_delete).
 */
export const RECALL_INDEXES = ['memory_facts_fts', 'session_messages_fts'] as const;
const PAGES_PER_STEP = 64;
const SETTLE_MS = 5_000;

/** One bounded merge step; true when it did work (total_changes moved by 2 or more). */
export function mergeStep(db: Db, table: (typeof RECALL_INDEXES)[number], pages = PAGES_PER_STEP): boolean {
  return writeTx(db, () => {
    const before = (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    db.prepare(`INSERT INTO ${table}(${table}, rank) VALUES('merge', ?)`).run(-pages);
    const after = (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    return after - before >= 2;
  });
}

const PURGE_PER_STEP = 500;

/**
 * Deletes up to `batch` queued rowids of forgotten facts from the fact index (migration 23 queues
 * them so forget does not pay for FTS5 deletes); true when it did work.
 */
export function purgeStep(db: Db, batch = PURGE_PER_STEP): boolean {
  return writeTx(db, () => {
    const rows = db.prepare('SELECT rowid FROM memory_fact_index_purge LIMIT ?').all(batch) as { rowid: number }[];
    const fromIndex = db.prepare('DELETE FROM memory_facts_fts WHERE rowid = ?');
    const fromQueue = db.prepare('DELETE FROM memory_fact_index_purge WHERE rowid = ?');
    for (const { rowid } of rows) {
      fromIndex.run(rowid);
      fromQueue.run(rowid);
    }
    return rows.length > 0;
  });
}

export const pendingPurges = (db: Db): number =>
  (db.prepare('SELECT count(*) AS n FROM memory_fact_index_purge').get() as { n: number }).n;

export class RecallIndexMaintenance {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private pass: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Something was forgotten since the WAL was last truncated. */
  private scrubWal = false;

  constructor(private readonly engine: Engine) {}

  start(): this {
    const schedule = () => this.schedule();
    this.engine.events.on('facts-changed', schedule);
    this.engine.events.on('response-completed', schedule);
    this.engine.events.on('sessions-forgotten', () => {
      this.scrubWal = true;
      schedule();
    });
    this.engine.onClose(() => this.stop());
    // A process that stopped right after a forget leaves queued purges: finish them soon.
    if (pendingPurges(this.engine.db) > 0) this.schedule();
    return this;
  }

  /** Runs once writes have been quiet for a few seconds. */
  schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void (this.pass = this.runAll()), SETTLE_MS);
    this.timer.unref();
  }

  async runAll(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      // A fact deleted by facts.delete leaves a queued purge: that is a forget too.
      if (pendingPurges(this.engine.db) > 0) this.scrubWal = true;
      const progress = this.purgeProgress();
      while (!this.stopped && purgeStep(this.engine.db)) {
        progress();
        await new Promise((resolve) => setImmediate(resolve));
      }
      for (const table of RECALL_INDEXES) {
        while (!this.stopped && mergeStep(this.engine.db, table)) {
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      if (this.scrubWal && !this.stopped) {
        if (truncateWal(this.engine.db)) this.scrubWal = false;
        else this.schedule(); // a reader held the WAL: try again once writes settle
      }
    } catch (e) {
      // Busy or closing: the next change schedules another pass.
      this.engine.log.warn(`recall index maintenance skipped: ${(e as Error).message}`);
    } finally {
      this.running = false;
    }
  }

  /**
   * Reports the forget clean-up after each purge step: index rows purged of those queued when
   * it began (each step takes up to PURGE_PER_STEP; counting what is left would scan the queue).
   */
  private purgeProgress(): () => void {
    const total = pendingPurges(this.engine.db);
    let steps = 0;
    return () => {
      steps++;
      const done = Math.min(total, steps * PURGE_PER_STEP);
      this.engine.events.emit('progress', { job: 'forget clean-up', unit: 'index rows', done, total });
    };
  }

  /**
   * Stops the pass. A forget that happened in this process is finished first (purges, then the
   * WAL truncated), so a CLI `sessions delete` that exits at once leaves nothing behind either.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.pass; // a pass in flight ends at its next step
    try {
      if (!this.scrubWal && pendingPurges(this.engine.db) === 0) return;
      const progress = this.purgeProgress();
      while (purgeStep(this.engine.db)) progress();
      truncateWal(this.engine.db);
    } catch (e) {
      this.engine.log.warn(`forget clean-up at shutdown skipped: ${(e as Error).message}`);
    }
  }
}
