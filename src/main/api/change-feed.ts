import { statSync } from 'node:fs';
import path from 'node:path';
import type { Engine } from '../engine';
import { SECTIONS } from '../wiki/layout';
import { refreshSettings } from '../settings-live';
import { contentSignature } from '../store/db';

/** What changed: the database (any process), wiki files, or settings.yaml. */
export type ChangeSource = 'db' | 'wiki' | 'settings';

export interface ChangeEvent {
  at: number;
  sources: ChangeSource[];
}

type Listener = (event: ChangeEvent) => void;

const POLL_MS = 400;

/**
 * Notices every write to a data home, whoever made it, and tells the open windows (IPC, the
 * HTTP door's event stream) so their views refresh. Cheap polling instead of hooks: SQLite's
 * data_version moves when another connection (the CLI, an MCP server) commits and
 * total_changes when this process writes; the wiki's folder mtimes move on every atomic page
 * write (a rename); settings.yaml's mtime on every save. Runs only while someone listens.
 */
export class ChangeFeed {
  private readonly listeners = new Set<Listener>();
  private timer: NodeJS.Timeout | null = null;
  private last: Record<ChangeSource, string> | null = null;
  private stopped = false;

  constructor(
    private readonly engine: Pick<Engine, 'db' | 'paths' | 'settings'>,
    private readonly intervalMs = POLL_MS,
  ) {}

  private signature(): Record<ChangeSource, string> {
    const { db, paths } = this.engine;
    const mtime = (p: string) => statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    return {
      db: contentSignature(db),
      wiki: [paths.wiki, ...SECTIONS.map((s) => path.join(paths.wiki, s))].map(mtime).join(':'),
      settings: String(mtime(paths.settings)),
    };
  }

  /** One look: the sources that changed since the previous look (none on the first). */
  poll(): ChangeEvent | null {
    if (this.stopped || !this.engine.db.open) return null;
    const now = this.signature();
    const before = this.last;
    this.last = now;
    if (!before) {
      // The settings file's current version is the baseline too.
      refreshSettings(this.engine);
      return null;
    }
    const sources = (Object.keys(now) as ChangeSource[]).filter((k) => now[k] !== before[k]);
    if (sources.length === 0) return null;
    if (sources.includes('settings')) refreshSettings(this.engine);
    return { at: Date.now(), sources };
  }

  private tick(): void {
    let event: ChangeEvent | null = null;
    try {
      event = this.poll();
    } catch (e) {
      console.error(`evoflux: change feed skipped a look: ${(e as Error).message}`);
    }
    if (!event) return;
    for (const fn of [...this.listeners]) {
      try {
        fn(event);
      } catch (e) {
        console.error('evoflux: change listener failed', e);
      }
    }
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    if (!this.timer && !this.stopped) {
      this.poll();
      this.timer = setInterval(() => this.tick(), this.intervalMs);
      this.timer.unref();
    }
    return () => {
      this.listeners.delete(fn);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
        this.last = null;
      }
    };
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
  }
}

const feeds = new WeakMap<Engine, ChangeFeed>();

/** The engine's one change feed, stopped when the engine closes. */
export function changeFeedFor(engine: Engine): ChangeFeed {
  let feed = feeds.get(engine);
  if (!feed) {
    const created = new ChangeFeed(engine);
    feeds.set(engine, created);
    engine.onClose(() => created.stop());
    feed = created;
  }
  return feed;
}
