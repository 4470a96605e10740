import type { EngineBase } from '../../engine-parts';
import type { ExtractionService } from '../extraction/service';
import { writeTx } from '../../store/db';
import { paceCheckpoints, type CheckpointPacer } from '../../store/checkpoint-pacer';
import {
  clearExtractionPending,
  countPendingExtraction,
  importProvenance,
  sessionsPendingExtraction,
} from '../../store/imports';
import { getCursor } from '../../store/extraction-states';
import { isCommandError } from '../../../shared/errors';

type QueueEngine = Pick<EngineBase, 'db' | 'settings' | 'clock' | 'log' | 'events'> & { extraction: ExtractionService };

export interface ExtractionDrainReport {
  /** Sessions extraction caught up with. */
  sessions: number;
  /** Sessions whose extraction failed (their cursor says why; retried later). */
  failed: number;
  /** Still pending afterwards (failed, leased elsewhere, or stopped early). */
  remaining: number;
}

type Outcome = 'done' | 'failed' | 'skipped' | 'stopped';

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
/** How often an idle background queue looks again for sessions it had to skip (failed, leased elsewhere). */
const IDLE_RECHECK_MS = 60_000;

/**
 * Extraction over imported sessions, through the sessions' own durable cursors (the same runs as
 * `extraction run`): one session at a time, each window committed in its own short transaction,
 * with the event loop free between runs so live turns go first. Which sessions are owed is
 * durable (import_conversations.extraction_pending), so a process that stops continues where it
 * was at its next start, and a failed cursor waits for its backoff like any other.
 */
export class ImportExtractionQueue {
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private stopped = false;
  private active = 0;

  constructor(private readonly engine: QueueEngine) {}

  /** Sessions being extracted right now by this process. */
  get running(): number {
    return this.active;
  }

  /** Long-running processes: work through what is owed in the background, and again after each import. */
  startBackground(): void {
    const { import: imports, extraction } = this.engine.settings;
    if (this.loop || !imports.extractInBackground || !extraction.enabled) return;
    this.loop = this.background().catch((e) =>
      this.engine.log.warn(`import extraction stopped: ${(e as Error).message}`),
    );
  }

  /** New imported messages: the background loop (if any) looks now. */
  kick(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  private async background(): Promise<void> {
    while (!this.stopped) {
      const report = await this.drain({ background: true });
      if (this.stopped) return;
      if (report.sessions === 0 || report.remaining > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, IDLE_RECHECK_MS);
          timer.unref();
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }

  /**
   * Works through every owed session once (each until its cursor has caught up). Sessions that
   * fail, wait for a backoff or are leased by another process are skipped for this pass.
   */
  async drain(
    options: { background?: boolean; signal?: AbortSignal; onProgress?(done: number, total: number): void } = {},
  ): Promise<ExtractionDrainReport> {
    const skipped = new Set<string>();
    const report: ExtractionDrainReport = { sessions: 0, failed: 0, remaining: 0 };
    const halted = () => this.stopped || !!options.signal?.aborted;
    const pacer = paceCheckpoints(this.engine.db);
    try {
      await this.work(skipped, report, halted, pacer, options);
    } finally {
      pacer.done();
    }
    if (!this.stopped) report.remaining = countPendingExtraction(this.engine.db);
    return report;
  }

  private async work(
    skipped: Set<string>,
    report: ExtractionDrainReport,
    halted: () => boolean,
    pacer: CheckpointPacer,
    options: { background?: boolean; onProgress?(done: number, total: number): void },
  ): Promise<void> {
    while (!halted()) {
      const [next] = sessionsPendingExtraction(this.engine.db, 1, skipped);
      if (!next) break;
      const outcome = await this.extractSession(next, !!options.background, halted);
      if (outcome === 'stopped') break;
      if (outcome === 'done') report.sessions++;
      else skipped.add(next);
      if (outcome === 'failed') report.failed++;
      pacer.step();
      options.onProgress?.(report.sessions, report.sessions + countPendingExtraction(this.engine.db));
      await yieldToEventLoop();
    }
  }

  /** Runs the session's extraction until its cursor has covered every message. */
  private async extractSession(sessionId: string, background: boolean, halted: () => boolean): Promise<Outcome> {
    const seen = importProvenance(this.engine.db, sessionId);
    if (!seen) return 'skipped';
    const cursor = getCursor(this.engine.db, sessionId);
    // In the background a failed cursor waits for its backoff, as the retry sweep would.
    if (background && cursor?.status === 'failed' && (cursor.nextAttemptAt ?? 0) > this.engine.clock.now()) {
      return 'skipped';
    }
    this.active++;
    try {
      for (;;) {
        if (halted()) return 'stopped';
        const r = await this.engine.extraction.runNow(sessionId);
        if (r.outcome === 'refused') return 'skipped';
        if (r.outcome === 'failed') return 'failed';
        if (!r.behind) break;
        await yieldToEventLoop();
      }
    } catch (e) {
      // The engine is shutting down (or the session went away): the next start continues.
      if (isCommandError(e)) return e.code === 'unavailable' ? 'stopped' : 'skipped';
      throw e;
    } finally {
      this.active--;
    }
    writeTx(this.engine.db, () => clearExtractionPending(this.engine.db, sessionId, seen.messageCount));
    return 'done';
  }
}
