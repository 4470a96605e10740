import type { EngineBase } from '../engine-parts';
import type { WikiService } from '../wiki/service';
import type { DreamService } from '../dream/service';
import { writeTx } from '../store/db';
import { deleteFollowUps, pendingWikiFollowUps } from '../store/forget-follow-ups';
import { cleanWikiAfterForget, type WikiForgetPlan } from '../dream/forget-pages';
import { rebuildIndex } from '../dream/index-page';

/** How long a long-running process waits before trying a clean-up the wiki lock refused again. */
const RETRY_MS = 30_000;

export interface WikiForgetReport {
  pages: { path: string; change: 'delete' | 'edit' }[];
  mentions: { path: string; line: number; text: string }[];
  /** The clean-up is queued but not done yet (the wiki was locked): it runs later, or at the next start. */
  pending: boolean;
}

export const reportOf = (plan: WikiForgetPlan, pending = false): WikiForgetReport => ({
  pages: plan.changes,
  mentions: plan.mentions,
  pending,
});

/**
 * Works off the wiki step of the forget follow-up queue: right after a forget commits (the
 * command waits for it), at start-up for anything a stopped process left, and before the engine
 * closes. One clean-up at a time; each removes its queue rows only once the wiki is clean, then
 * lets index maintenance run the disk scrub.
 */
export class ForgetFollowUps {
  private chain: Promise<unknown> = Promise.resolve();
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly engine: Pick<EngineBase, 'clock' | 'db' | 'events' | 'onClose'> & {
      wiki: WikiService;
      dream: DreamService;
    },
  ) {}

  start(): this {
    this.engine.onClose(() => this.close());
    if (pendingWikiFollowUps(this.engine.db).ids.length) void this.run().catch(() => {});
    return this;
  }

  /**
   * Cleans the wiki for every queued forget. `factTexts` (known only to the forget that just
   * committed) also finds person-written copies of the deleted facts' text. Null when nothing was
   * queued; throws when the wiki could not be cleaned (the rows stay queued).
   */
  run(factTexts: readonly string[] = []): Promise<WikiForgetPlan | null> {
    const next = this.chain.then(() => this.step(factTexts));
    this.chain = next.catch(() => {});
    return next;
  }

  private async step(factTexts: readonly string[]): Promise<WikiForgetPlan | null> {
    const db = this.engine.db;
    const queued = pendingWikiFollowUps(db);
    if (queued.ids.length === 0) return null;
    try {
      const plan = await cleanWikiAfterForget(this.engine.wiki, { ...queued, factTexts });
      if (plan.changes.length) {
        await rebuildIndex(this.engine.wiki, new Date(this.engine.clock.now()).toISOString().slice(0, 10));
        if (this.engine.wiki.exists('LINT.md')) await this.engine.dream.lint();
      }
      writeTx(db, () => deleteFollowUps(db, queued.ids));
      this.engine.events.emit('forget-followed-up', { sessionIds: queued.sessionIds, factIds: queued.factIds });
      return plan;
    } catch (e) {
      console.error(`evoflux: the wiki clean-up after a forget is queued for later: ${(e as Error).message}`);
      this.retryLater();
      throw e;
    }
  }

  private retryLater(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.run().catch(() => {});
    }, RETRY_MS);
    this.retry.unref();
  }

  /** Before the database closes: one more attempt at anything still queued. */
  private async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    await this.run().catch(() => {});
  }
}
