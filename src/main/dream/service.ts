import { statSync } from 'node:fs';
import { openSettingsDocument } from '../settings-document';
import type { Db } from '../store/db';
import { allSessionIds, getSession, idExistence, sessionIdTails } from '../store/sessions';
import type { Clock } from '../../shared/clock';
import type { HomePaths } from '../home';
import { loadSettings, settingIsValid, type Settings, type SettingsProblem } from '../settings';
import { writeFileAtomically } from '../wiki/atomic';
import type { WikiService } from '../wiki/service';
import type { LintReport } from '../wiki/lint';
import { createChatClient, llmConfigFromSettings } from '../llm/openai-client';
import { parseSchedule, nextFire } from './cron';
import { DeterministicConsolidator } from './deterministic';
import { ModelConsolidator } from './model-consolidator';
import { DreamLock } from './run-lock';
import {
  lintAndWrite,
  pendingCounts,
  runDream,
  type DreamDeps,
  type DreamRunResult,
  type DreamSettings,
  type RunOptions,
} from './run';
import { DreamScheduler, type SchedulerTimers } from './scheduler';
import type { Consolidator } from './work';
import { sessionSourceLinkSlugs, sessionSourceSlugs } from './source-page';

export interface DreamLogEntry {
  at: string;
  summary: string;
  /** From the entry's detail lines (null for entries older versions wrote without them). */
  sessions: number | null;
  notes: number | null;
  failed: number | null;
  pagesWritten: number | null;
  pages: string[];
}

export interface DreamStatus {
  running: boolean;
  enabled: boolean;
  schedule: string;
  nextRunAt: number | null;
  lastRuns: DreamLogEntry[];
  pendingSessions: number;
  pendingNotes: number;
  settingsProblems: SettingsProblem[];
}

export interface DreamConfig {
  enabled: boolean;
  schedule: string;
}

export interface DreamServiceDeps {
  db: Db;
  wiki: WikiService;
  clock: Clock;
  paths: HomePaths;
  settings: Settings;
  /** Real timers for the app; null for tests that drive scheduler.tick() themselves. */
  timers?: SchedulerTimers | null;
  /** Replaces the consolidator chosen from settings (tests, benchmarks). */
  consolidator?: () => Consolidator;
}

/** How long a scheduled run waits for a run in another process before skipping its turn. */
const SCHEDULED_WAIT_MS = 5 * 60_000;
const LOG_ENTRY = /^## \[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}) UTC\] (dream \|.*)$/;

const countIn = (text: string, re: RegExp): number | null => {
  const m = re.exec(text);
  return m ? Number(m[1]) : null;
};

/** The last `limit` Dream runs recorded in LOG.md, newest first, with their counts and pages. */
export function lastRunsFromLog(text: string | null, limit = 10): DreamLogEntry[] {
  if (!text) return [];
  const out: DreamLogEntry[] = [];
  let current: DreamLogEntry | null = null;
  for (const line of text.split('\n')) {
    const m = LOG_ENTRY.exec(line);
    if (m) {
      const summary = m[2]!;
      current = {
        at: m[1]! + ' UTC',
        summary,
        sessions: countIn(summary, /sessions=(\d+)/),
        notes: countIn(summary, /notes=(\d+)/),
        failed: countIn(summary, /failed=(\d+)/),
        pagesWritten: null,
        pages: [],
      };
      out.push(current);
    } else if (line.startsWith('## ')) {
      current = null;
    } else if (current) {
      current.pagesWritten ??= countIn(line, /^- pages written: (\d+)/);
      const pages = /^- pages: (.*)$/.exec(line);
      if (pages) current.pages = pages[1]!.split(', ').filter((p) => p.endsWith('.md'));
    }
  }
  return out.slice(-limit).reverse();
}

/**
 * Dream for one engine: manual and scheduled runs, status, lint and the schedule settings. The
 * scheduler only runs where start() is called (the app, `serve`), never in one-shot CLI commands.
 */
export class DreamService {
  readonly lock: DreamLock;
  readonly scheduler: DreamScheduler;
  private settingsMtime: number | null | undefined = undefined;
  private inFlight = new Set<Promise<unknown>>();

  constructor(private readonly d: DreamServiceDeps) {
    this.lock = new DreamLock(d.paths.locks);
    this.scheduler = new DreamScheduler({
      clock: d.clock,
      settings: () => this.settings(),
      fire: () => this.track(runDream(this.deps(), { drain: false, waitMs: SCHEDULED_WAIT_MS })),
      timers:
        d.timers === undefined ? { setTimeout, clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) } : d.timers,
    });
  }

  /** Current Dream settings; settings.yaml is re-read whenever its mtime changed. */
  settings(): DreamSettings {
    let mtime: number | null;
    try {
      mtime = statSync(this.d.paths.settings).mtimeMs;
    } catch {
      mtime = null;
    }
    if (mtime !== this.settingsMtime) {
      this.settingsMtime = mtime;
      if (mtime !== null) {
        const loaded = loadSettings(this.d.paths.settings);
        // Each valid key is taken; a bad one (or a file that cannot be parsed) keeps what we had.
        // The problems are reported by dream.status and doctor.
        const dream = this.d.settings.dream as Record<string, unknown>;
        for (const [key, value] of Object.entries(loaded.settings.dream)) {
          if (settingIsValid(loaded.problems, `dream.${key}`)) dream[key] = value;
        }
      }
    }
    return this.d.settings.dream;
  }

  private consolidator(): Consolidator {
    if (this.d.consolidator) return this.d.consolidator();
    const s = this.settings();
    const llm = llmConfigFromSettings(this.d.settings);
    if (s.model.trim() && llm) {
      return new ModelConsolidator(this.d.wiki, createChatClient({ ...llm, model: s.model.trim() }), {
        timeoutMs: s.modelTimeoutMs,
        maxRetries: this.d.settings.llm.maxRetries,
        sessionExists: (id) => getSession(this.d.db, id) !== undefined,
      });
    }
    return new DeterministicConsolidator(this.d.db, this.d.wiki);
  }

  private deps(): DreamDeps {
    const db = this.d.db;
    const exists = idExistence(db);
    let legacySlugs: Set<string> | null = null;
    let slugs: Set<string> | null = null;
    return {
      db,
      wiki: this.d.wiki,
      clock: this.d.clock,
      lock: this.lock,
      settings: () => this.settings(),
      consolidator: () => this.consolidator(),
      // A page without its `session` front matter is judged by its name: an older version's
      // last-8-hex name, or the current name, computed for every session once per lint.
      sessionExists: ({ sessionId, slug }) => {
        if (sessionId) return exists.session(sessionId);
        if (/^[0-9a-f]{8}$|^[0-9a-f]{16}$/.test(slug)) {
          legacySlugs ??= new Set(sessionIdTails(db));
          return legacySlugs.has(slug.slice(-8));
        }
        slugs ??= new Set(allSessionIds(db).flatMap(sessionSourceSlugs));
        return slugs.has(`session-${slug}`);
      },
      mentions: this.mentionChecks(),
    };
  }

  /** What lint checks a mention against: the sessions and facts that exist now. */
  private mentionChecks(): DreamDeps['mentions'] {
    const db = this.d.db;
    const exists = idExistence(db);
    let stems: Set<string> | null = null;
    return {
      stemExists: (stem) => (stems ??= new Set(allSessionIds(db).flatMap(sessionSourceLinkSlugs))).has(stem),
      sessionExists: exists.sessionLoose,
      factExists: exists.factLoose,
    };
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p)).catch(() => {});
    return p;
  }

  /** A manual run: reports already_running at once when another run (here or elsewhere) holds the lock. */
  run(options: RunOptions): Promise<DreamRunResult> {
    return this.track(runDream(this.deps(), { ...options, waitMs: options.waitMs ?? 0 }));
  }

  lint(): Promise<LintReport> {
    return this.track(lintAndWrite(this.deps()));
  }

  async status(): Promise<DreamStatus> {
    const s = this.settings();
    const counts = pendingCounts({ db: this.d.db, wiki: this.d.wiki });
    // From settings.yaml as it is now: a running scheduler adopts an edited schedule at once.
    this.scheduler.refresh();
    let nextRunAt = this.scheduler.started ? this.scheduler.nextRunAt : null;
    if (!this.scheduler.started && s.enabled) {
      try {
        nextRunAt = nextFire(s.schedule, this.d.clock.now());
      } catch {
        nextRunAt = null;
      }
    }
    return {
      running: await this.lock.heldAnywhere(),
      enabled: s.enabled,
      schedule: s.schedule,
      nextRunAt,
      lastRuns: lastRunsFromLog(this.d.wiki.tryRead('LOG.md')?.content ?? null),
      pendingSessions: counts.sessions,
      pendingNotes: counts.notes,
      settingsProblems: loadSettings(this.d.paths.settings).problems,
    };
  }

  getConfig(): DreamConfig {
    const s = this.settings();
    return { enabled: s.enabled, schedule: s.schedule };
  }

  /**
   * Saves enabled/schedule into settings.yaml (other keys and comments kept), atomically, then
   * reloads the scheduler. A bad cron expression is refused before anything is written.
   */
  async setConfig(next: Partial<DreamConfig>): Promise<DreamConfig> {
    const current = this.getConfig();
    const merged = { ...current, ...next };
    merged.schedule = merged.schedule.trim();
    parseSchedule(merged.schedule).stop();
    const doc = openSettingsDocument(this.d.paths.settings);
    doc.setIn(['dream', 'enabled'], merged.enabled);
    doc.setIn(['dream', 'schedule'], merged.schedule);
    await writeFileAtomically(this.d.paths.settings, doc.toString());
    Object.assign(this.d.settings.dream, merged);
    this.settingsMtime = undefined;
    this.settings();
    this.scheduler.reload();
    if (merged.enabled && !this.scheduler.started && this.autoStart) this.scheduler.start();
    return merged;
  }

  private autoStart = false;

  /** Starts the scheduler (idempotent). While Dream is disabled it only watches settings.yaml. */
  start(): void {
    this.autoStart = true;
    this.scheduler.start();
  }

  /** Stops scheduling and waits for any run in flight, so the database can close safely. */
  async stop(): Promise<void> {
    this.autoStart = false;
    await this.scheduler.stop();
    await Promise.allSettled([...this.inFlight]);
  }
}
