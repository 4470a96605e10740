import type { Clock } from '../../shared/clock';
import { nextFire } from './cron';
import type { DreamSettings } from './run';
import { processLog } from '../log';

export interface SchedulerTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface DreamSchedulerOptions {
  clock: Clock;
  /** Current Dream settings; re-reads settings.yaml when its mtime changed. */
  settings(): DreamSettings;
  /** One scheduled run (drain = false). */
  fire(): Promise<unknown>;
  /**
   * Real timers wake the scheduler for the app; tests pass null and call tick() after moving
   * the clock, so no test ever sleeps waiting for a schedule.
   */
  timers?: SchedulerTimers | null;
  /** Longest sleep between checks, so an edited settings.yaml is noticed without a restart. */
  pollMs?: number;
}

/**
 * Runs Dream on the cron schedule in settings.yaml (UTC). Each tick re-reads the settings:
 * disabling stops firing, a new schedule is adopted, a malformed file keeps the last good one.
 * A fire that is in flight is never interrupted: stop() waits for it.
 */
export class DreamScheduler {
  private running = false;
  private timer: unknown = null;
  private inFlight: Promise<unknown> | null = null;
  private schedule: string | null = null;
  nextRunAt: number | null = null;
  lastError: string | null = null;

  constructor(private readonly o: DreamSchedulerOptions) {}

  get started(): boolean {
    return this.running;
  }

  get firing(): boolean {
    return this.inFlight !== null;
  }

  /** Idempotent. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.plan(true);
    this.arm();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.disarm();
    this.nextRunAt = null;
    await this.inFlight?.catch(() => {});
  }

  /** Adopt changed settings now (after a config save); safe before start. */
  reload(): void {
    this.plan(true);
    if (this.running) this.arm();
  }

  /**
   * Adopts settings.yaml as it is now (a schedule edited by hand, Dream switched off) without
   * waiting for the next tick; keeps the planned time when nothing changed.
   */
  refresh(): void {
    if (!this.running) return;
    this.plan(false);
    if (!this.inFlight) this.arm();
  }

  /** Recomputes the next fire time; keeps it when nothing changed. */
  private plan(force: boolean): DreamSettings {
    const s = this.o.settings();
    if (!s.enabled) {
      this.nextRunAt = null;
      this.schedule = null;
      return s;
    }
    if (force || s.schedule !== this.schedule || this.nextRunAt === null) {
      try {
        this.nextRunAt = nextFire(s.schedule, this.o.clock.now());
        this.schedule = s.schedule;
        this.lastError = null;
      } catch (e) {
        // A bad expression written by hand keeps the previous plan.
        this.lastError = (e as Error).message;
        if (this.schedule === null) this.nextRunAt = null;
      }
    }
    return s;
  }

  /**
   * Checks the settings and fires if the next run time has come. Returns whether it fired.
   * The app's timer calls this; tests call it directly after advancing a ManualClock.
   */
  async tick(): Promise<boolean> {
    if (!this.running || this.inFlight) return false;
    this.plan(false);
    let fired = false;
    if (this.nextRunAt !== null && this.o.clock.now() >= this.nextRunAt) {
      fired = true;
      const run = this.o.fire();
      this.inFlight = run;
      try {
        await run;
      } catch (e) {
        this.lastError = (e as Error).message;
        processLog.error('dream: scheduled run failed', e);
      } finally {
        this.inFlight = null;
      }
      if (this.running) this.plan(true);
    }
    if (this.running) this.arm();
    return fired;
  }

  private disarm(): void {
    if (this.timer !== null && this.o.timers) this.o.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    this.disarm();
    const timers = this.o.timers;
    if (!timers || !this.running) return;
    const poll = this.o.pollMs ?? 60_000;
    const wait = this.nextRunAt === null ? poll : Math.min(poll, Math.max(0, this.nextRunAt - this.o.clock.now()));
    const handle = timers.setTimeout(() => {
      this.timer = null;
      void this.tick();
    }, wait);
    (handle as { unref?: () => void }).unref?.();
    this.timer = handle;
  }
}
