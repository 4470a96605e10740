import type { EngineBase } from '../../engine-parts';
import { truncateWal, writeTx, type Db } from '../../store/db';
import {
  indexPages,
  mergedPages,
  mergeStep,
  pendingPurges,
  purgeStep,
  PURGE_PER_STEP,
  RECALL_INDEXES,
  recordMerged,
} from '../../store/recall-index';
import { countFollowUps, deleteFollowUps, diskFollowUpIds } from '../../store/forget-follow-ups';

/**
 * Keeps the recall and dialogue FTS5 indexes compact. FTS5's automerge leaves an index as a
 * stack of segments (one per write transaction, merged in fours), and every lookup probes each
 * segment: after bulk growth a lookup costs a few times what it does on a merged index. So after
 * writes settle, the engine runs FTS5's incremental 'merge' with a negative page budget (merge
 * across levels, as 'optimize' does, but bounded), one short write transaction per step, until a
 * step finds nothing left to merge. Steps yield to the event loop in between, and each waits for
 * a moment when no request is in flight (engine.requests), so none lands in the middle of one.
 *
 * Merging everything rewrites the whole index, so a large one is merged only once it has grown by
 * a tenth since it was last merged whole (its size then is kept in the store, so a new process
 * knows it too): rewriting a 100k-fact index (or a long imported history's dialogue) after every
 * turn cost ~100 ms of steps and megabytes of writes for one new row. In between, FTS5's own
 * automerge keeps the new rows' segments few (merged in fours as they are written). A small index (up to SMALL_INDEX_PAGES) is merged after every settle, as it costs
 * little, and a forget's scrub merges every index whatever its size.
 *
 * After a forget, the same pass finishes the forget's disk scrub (its `disk` follow-up, queued in
 * the forget's transaction): it purges the forgotten facts' index rows and merges until every
 * segment is rewritten. A contentless FTS5 index only tombstones a deleted row; its terms stay in
 * the segment's pages until a merge rewrites that segment (a single segment with tombstones is
 * rewritten too). Then it checkpoints and truncates the WAL, whose older page images still hold
 * the forgotten rows (memory.db itself zeroes deleted content: secure_delete), and only then drops
 * the follow-up, so a crash anywhere before repeats the scrub on the next start. The scrub waits
 * while the forget's wiki clean-up is pending: those rows name what was forgotten too.
 */
const SETTLE_MS = 5_000;
/** The longest a step waits for a gap between requests before it runs anyway. */
const MAX_DEFER_MS = 2_000;
/** An index up to this size (about 1 MB) is merged whenever writes settle. */
export const SMALL_INDEX_PAGES = 256;
/** A larger one once it has grown by this share since it was last merged. */
const REMERGE_GROWTH = 0.1;

/** A forget's disk scrub is queued and may run (its wiki clean-up is done). */
const scrubDue = (db: Db): boolean => countFollowUps(db, 'disk') > 0 && countFollowUps(db, 'wiki') === 0;

/**
 * Finishes a forget's disk scrub: the WAL checkpointed and truncated, then the follow-up dropped.
 * False when a reader kept the WAL from being truncated (try again later).
 */
export function finishScrub(db: Db): boolean {
  if (!truncateWal(db)) return false;
  const ids = diskFollowUpIds(db);
  if (ids.length) writeTx(db, () => deleteFollowUps(db, ids));
  return true;
}

/** Runs a whole pass synchronously (a process about to exit): purge, merge every index, scrub. */
export function scrubNow(db: Db, onPurgeStep: () => void = () => {}): void {
  while (purgeStep(db)) onPurgeStep();
  for (const table of RECALL_INDEXES) {
    while (mergeStep(db, table));
    recordMerged(db, table);
  }
  if (scrubDue(db)) finishScrub(db);
}

export class RecallIndexMaintenance {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private pass: Promise<void> = Promise.resolve();
  private stopped = false;
  constructor(
    private readonly engine: Pick<EngineBase, 'db' | 'events' | 'log' | 'onClose' | 'requests'>,
    private readonly smallIndexPages = SMALL_INDEX_PAGES,
  ) {}

  /** Between steps: yield to the event loop, then wait for a moment with no request in flight. */
  private async gap(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    await this.engine.requests.idle(MAX_DEFER_MS);
  }

  start(): this {
    const schedule = () => this.schedule();
    this.engine.events.on('facts-changed', schedule);
    this.engine.events.on('response-completed', schedule);
    this.engine.events.on('messages-written', schedule);
    this.engine.events.on('sessions-forgotten', schedule);
    this.engine.events.on('forget-followed-up', schedule);
    this.engine.onClose(() => this.stop());
    // A process that stopped right after a forget leaves queued purges or a scrub: finish them soon.
    if (pendingPurges(this.engine.db) > 0 || countFollowUps(this.engine.db, 'disk') > 0) this.schedule();
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
      const progress = this.purgeProgress();
      await this.engine.requests.idle(MAX_DEFER_MS);
      while (!this.stopped && purgeStep(this.engine.db)) {
        progress();
        await this.gap();
      }
      const scrub = scrubDue(this.engine.db);
      await this.merge(scrub);
      if (!this.stopped && scrub && !finishScrub(this.engine.db)) {
        this.schedule(); // a reader held the WAL: try again once writes settle
      } else if (!this.stopped) {
        // Writes went quiet: give the WAL's pages back (never waiting: a reader only defers it).
        truncateWal(this.engine.db, 0);
      }
    } catch (e) {
      // Busy or closing: the next change schedules another pass.
      this.engine.log.warn(`recall index maintenance skipped: ${(e as Error).message}`);
    } finally {
      this.running = false;
    }
  }

  /** Merges each index that is due (every one for a scrub), step by step between requests. */
  private async merge(scrub: boolean): Promise<void> {
    for (const table of RECALL_INDEXES) {
      if (!scrub && !this.mergeDue(table)) continue;
      while (!this.stopped && mergeStep(this.engine.db, table)) await this.gap();
      if (!this.stopped) recordMerged(this.engine.db, table);
    }
  }

  /**
   * Whether a settle should merge this index whole: it is small, or it was never merged whole (a
   * store from before the size was kept), or it grew by REMERGE_GROWTH since.
   */
  private mergeDue(table: (typeof RECALL_INDEXES)[number]): boolean {
    const pages = indexPages(this.engine.db, table);
    const merged = mergedPages(this.engine.db, table);
    return pages <= this.smallIndexPages || merged === undefined || pages >= merged * (1 + REMERGE_GROWTH);
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
   * Stops the pass. A forget's scrub still due is finished first (purges, every index merged, the
   * WAL truncated), so a CLI `sessions delete` that exits at once leaves nothing behind either.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.pass; // a pass in flight ends at its next step
    try {
      if (pendingPurges(this.engine.db) === 0 && !scrubDue(this.engine.db)) return;
      scrubNow(this.engine.db, this.purgeProgress());
    } catch (e) {
      this.engine.log.warn(`forget clean-up at shutdown skipped: ${(e as Error).message}`);
    }
  }
}
