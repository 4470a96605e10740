import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { EngineBase } from '../../engine-parts';
import { writeTx } from '../../store/db';
import { getSession } from '../../store/sessions';
import { countCompletedResponses } from '../../store/messages';
import { createChatClient, llmConfigFromSettings } from '../../llm/openai-client';
import { CommandError, invalid, notFound } from '../../../shared/errors';
import { isDue, leaseIsLive, reclaimExpiredLeases, type Cadence } from './cursor';
import { anyExpiredLease, dueRetries, getCursor, makeDueNow } from '../../store/extraction-states';
import { llmExtractor } from './llm-extractor';
import { ruleExtractor } from './rule-extractor';
import { runExtraction, type RunDeps, type RunResult } from './run';
import type { Extractor } from './types';
import { refreshSettings } from '../../settings-live';
import { recordExtractionRun } from '../../store/extraction-runs';

type EngineCore = Pick<EngineBase, 'db' | 'clock' | 'settings' | 'events' | 'onClose' | 'log'> &
  Partial<Pick<EngineBase, 'paths'>>;

export interface ExtractionServiceOptions {
  /** Replaces the extractor chosen from settings (benchmarks, embedding apps). */
  extractor?: Extractor;
  /**
   * The built-in rules, when settings name no endpoint: the engine's child process for them
   * (workers/extraction-process.ts); by default they run on the calling thread.
   */
  rules?: Extractor;
  env?: NodeJS.ProcessEnv;
  warn?(message: string): void;
}

/** Random per process: a lease names who holds it, so a second process knows it is not its own. */
export const newLeaseOwner = (): string => `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

/** The built-in rules when no endpoint is configured, the OpenAI-compatible endpoint otherwise. */
export function extractorFromSettings(
  settings: EngineBase['settings'],
  env: NodeJS.ProcessEnv = process.env,
  rules: Extractor = ruleExtractor,
): Extractor {
  const config = llmConfigFromSettings(settings, env);
  if (!config) return rules;
  return llmExtractor(createChatClient(config), {
    timeoutMs: settings.llm.timeoutMs,
    maxRetries: settings.llm.maxRetries,
    maxTokens: settings.extraction.maxTokens,
  });
}

interface InFlight {
  promise: Promise<RunResult>;
  controller: AbortController;
}

/**
 * Drives extraction for the engine: listens for completed responses, runs due sessions in the
 * background (tracked), reclaims expired leases at startup, retries failed cursors once their
 * backoff passes, and drains before the database closes.
 */
export class ExtractionService {
  readonly owner = newLeaseOwner();
  private readonly fixedExtractor: Extractor | null;
  private readonly rules: Extractor;
  private readonly env: NodeJS.ProcessEnv | undefined;
  private built: { signature: string; extractor: Extractor } | null = null;
  private readonly inFlight = new Map<string, InFlight>();
  /**
   * Sessions whose response completed while their run was in flight: that run read its window
   * before the response, so once it ends the session is checked again (a fast agent or a slow
   * endpoint would otherwise leave a due window until the next response, or for good when the
   * conversation ended there).
   */
  private readonly completedMeanwhile = new Set<string>();
  private closing = false;
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly warn: (message: string) => void;

  constructor(
    private readonly engine: EngineCore,
    options: ExtractionServiceOptions = {},
  ) {
    this.fixedExtractor = options.extractor ?? null;
    this.rules = options.rules ?? ruleExtractor;
    this.env = options.env;
    this.warn = options.warn ?? ((m) => engine.log.warn(m));
  }

  /**
   * The extractor the current settings call for: rebuilt when the endpoint settings change (the
   * settings screen saves them while the app runs), so the next run uses them.
   */
  get extractor(): Extractor {
    if (this.fixedExtractor) return this.fixedExtractor;
    if (this.engine.paths) refreshSettings({ paths: this.engine.paths, settings: this.engine.settings });
    const { llm, extraction } = this.engine.settings;
    const signature = JSON.stringify([llm, extraction.maxTokens, this.env?.EVOFLUX_LLM_API_KEY ?? null]);
    if (this.built?.signature !== signature) {
      this.built = { signature, extractor: extractorFromSettings(this.engine.settings, this.env, this.rules) };
    }
    return this.built.extractor;
  }

  /** Startup: reclaim what a dead process left, subscribe, and register the drain. */
  start(): this {
    // Looked up first, so a process with nothing to reclaim (nearly every CLI command) never
    // takes the write lock just to start.
    const now = this.engine.clock.now();
    const reclaimed = anyExpiredLease(this.engine.db, now)
      ? writeTx(this.engine.db, () => reclaimExpiredLeases(this.engine.db, now))
      : [];
    if (reclaimed.length) this.warn(`extraction: reclaimed ${reclaimed.length} expired lease(s) at startup`);
    const off = this.engine.events.on('response-completed', ({ sessionId }) => this.onResponseCompleted(sessionId));
    const every = this.engine.settings.extraction.retrySweepMs;
    if (every > 0) {
      this.sweepTimer = setInterval(() => this.retryDue(), every);
      this.sweepTimer.unref();
    }
    this.engine.onClose(async () => {
      off();
      await this.drain();
    });
    return this;
  }

  private get cadence(): Cadence {
    return this.engine.settings.extraction;
  }

  private deps(): RunDeps {
    const s = this.engine.settings.extraction;
    return {
      db: this.engine.db,
      now: () => this.engine.clock.now(),
      owner: this.owner,
      extractor: this.extractor,
      leaseMs: s.leaseMs,
      bounds: { maxMessages: s.maxMessages, maxInputChars: s.maxInputChars },
      backoff: { baseMs: s.retryBaseMs, maxMs: s.retryMaxMs },
      maxWindows: s.maxWindowsPerRun,
      warn: this.warn,
    };
  }

  /** Only top-level sessions count: team members and side chats never drive their own extraction. */
  private onResponseCompleted(sessionId: string): void {
    // The memory switch (extraction.enabled) may have been flipped by another process.
    if (this.engine.paths) refreshSettings({ paths: this.engine.paths, settings: this.engine.settings });
    if (this.closing || !this.engine.settings.extraction.enabled) return;
    if (this.inFlight.has(sessionId)) {
      this.completedMeanwhile.add(sessionId);
      return;
    }
    const session = getSession(this.engine.db, sessionId);
    if (!session || session.kind !== 'top-level') return;
    const state = getCursor(this.engine.db, sessionId);
    const count = countCompletedResponses(this.engine.db, sessionId);
    if (!isDue(count, state?.lastResponseCount ?? 0, this.cadence)) return;
    if (state && leaseIsLive(state, this.engine.clock.now())) return;
    void this.schedule(sessionId, this.cadence);
  }

  /** Failed cursors whose backoff has passed; the timer calls this, tests call it directly. */
  retryDue(): Promise<RunResult[]> {
    if (this.closing) return Promise.resolve([]);
    const now = this.engine.clock.now();
    writeTx(this.engine.db, () => reclaimExpiredLeases(this.engine.db, now));
    return Promise.all(
      dueRetries(this.engine.db, now)
        .filter((id) => !this.inFlight.has(id))
        // The failed window was already owed; only the backoff (dueRetries) gates a retry.
        .map((id) => this.schedule(id, null)),
    );
  }

  /** Background work in flight in this process (for tests and status). */
  pending(): Promise<RunResult>[] {
    return [...this.inFlight.values()].map((f) => f.promise);
  }

  private schedule(sessionId: string, cadence: Cadence | null): Promise<RunResult> {
    const existing = this.inFlight.get(sessionId);
    if (existing) return existing.promise;
    const controller = new AbortController();
    const promise = (async () => {
      // Off the caller's stack: a response is persisted and answered before extraction starts.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const result = await runExtraction(this.deps(), sessionId, { cadence, signal: controller.signal });
      this.logRun(result);
      if (result.factsStored > 0) this.engine.events.emit('facts-changed', { sessionIds: [sessionId] });
      if (result.outcome === 'failed') this.warn(`extraction: session ${sessionId} failed: ${result.error}`);
      return result;
    })()
      .catch((e: unknown): RunResult => {
        this.warn(`extraction: session ${sessionId} crashed: ${(e as Error)?.message ?? e}`);
        throw e;
      })
      .finally(() => {
        this.inFlight.delete(sessionId);
        if (!this.completedMeanwhile.delete(sessionId)) return;
        // The run's own result stands whatever this check meets.
        try {
          this.onResponseCompleted(sessionId);
        } catch (e) {
          this.warn(`extraction: session ${sessionId} could not be checked again: ${(e as Error).message}`);
        }
      });
    promise.catch(() => {});
    this.inFlight.set(sessionId, { promise, controller });
    return promise;
  }

  /** The run log the overview charts (refusals and cancellations at shutdown are not runs). */
  private logRun(r: RunResult): void {
    if (r.outcome === 'refused' || this.closing) return;
    try {
      writeTx(this.engine.db, () => recordExtractionRun(this.engine.db, r, this.engine.clock.now()));
    } catch (e) {
      this.warn(`extraction: could not log the run for ${r.sessionId}: ${(e as Error).message}`);
    }
  }

  private requireTopLevel(sessionId: string): void {
    const session = getSession(this.engine.db, sessionId);
    if (!session) throw notFound('session', sessionId, 'sessionId');
    if (session.kind !== 'top-level') {
      throw invalid(
        'sessionId',
        `is a ${session.kind} session; extraction runs on its top-level session ${session.parentSessionId}`,
      );
    }
  }

  /** extraction.run: now, whatever the cadence or backoff; refused only by a live lease. */
  async runNow(sessionId: string): Promise<RunResult> {
    this.requireTopLevel(sessionId);
    if (this.closing) throw new CommandError('unavailable', 'the engine is shutting down');
    await this.inFlight.get(sessionId)?.promise.catch(() => {});
    return this.schedule(sessionId, null);
  }

  /** extraction.retry: a failed cursor becomes due now and runs. */
  async retry(sessionId: string): Promise<RunResult> {
    this.requireTopLevel(sessionId);
    const state = getCursor(this.engine.db, sessionId);
    const now = this.engine.clock.now();
    if (state?.status === 'processing' && state.leaseExpiresAt !== null && state.leaseExpiresAt <= now) {
      writeTx(this.engine.db, () => reclaimExpiredLeases(this.engine.db, now));
    } else if (state?.status !== 'failed') {
      throw new CommandError(
        'conflict',
        `extraction for session ${sessionId} is ${state?.status ?? 'not started'}, not failed: nothing to retry (use extraction.run)`,
        'sessionId',
      );
    }
    writeTx(this.engine.db, () => makeDueNow(this.engine.db, sessionId, now));
    return this.runNow(sessionId);
  }

  /**
   * Waits up to drainMs for running extractions, then cancels the rest; each cancelled run gives
   * its lease back as failed ("cancelled during shutdown") before the database closes.
   */
  async drain(): Promise<void> {
    this.closing = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const all = () => Promise.allSettled([...this.inFlight.values()].map((f) => f.promise));
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      all().then(() => false),
      new Promise<boolean>(
        (resolve) => (timer = setTimeout(() => resolve(true), this.engine.settings.extraction.drainMs)),
      ),
    ]);
    clearTimeout(timer);
    if (timedOut) for (const f of this.inFlight.values()) f.controller.abort();
    await all();
  }
}
