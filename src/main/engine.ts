import { currentNativeBinding, openWriter } from './store/db';
import { ensureHome } from './home';
import { loadSettings, type Settings } from './settings';
import { adoptProcessLog, createLog, logLevelFrom, processKind } from './log';
import { systemClock, type Clock } from '../shared/clock';
import { EventHub } from './events';
import { RequestGate } from './request-gate';
import type { EngineBase } from './engine-parts';

export type { EngineBase } from './engine-parts';
import { ExtractionService } from './memory/extraction/service';
import { LegacyImportService } from './memory/legacy-import';
import { createReadLane, type ReadLane } from './workers/read-lane';
import { createExtractionProcess, type ExtractionProcess } from './workers/extraction-process';
import { WalCheckpoints } from './wal-checkpoints';
import { RecallIndexMaintenance } from './memory/recall/index-maintenance';
import { WikiService } from './wiki/service';
import { seedWiki } from './wiki/seed';
import { DreamService } from './dream/service';
import { ForgetFollowUps } from './memory/forget-follow-ups';
import { startBlockUpgrade } from './memory/recall/block-upgrade';
import { ConversationImportService } from './memory/history-import/service';

export interface EngineOptions {
  home: string;
  clock?: Clock;
  /** Overrides settings.yaml, for tests. */
  settings?: Settings;
  /** better-sqlite3 binding for a non-Node runtime (the Electron shell). */
  nativeBinding?: string;
}

/**
 * The composition root: one data home, one writer connection, the services built on them.
 * close() drains background work before the database closes.
 */
export interface Engine extends EngineBase {
  /** Cadence-driven background extraction, manual runs and retries. */
  extraction: ExtractionService;
  /** The one-time import of legacy extraction notes (also run by hand). */
  legacyImport: LegacyImportService;
  /** ChatGPT / Claude exports and JSONL transcripts, and extraction over what they brought. */
  historyImport: ConversationImportService;
  /** Worker threads with read-only connections: recall and memory_search run there. */
  readLane: ReadLane;
  /** The built-in rule extractor's child process, started by the first window it is given. */
  extractionProcess: ExtractionProcess;
  /** Copies the WAL back into memory.db between requests, before the writer's commit must. */
  walCheckpoints: WalCheckpoints;
  /** The Markdown wiki at paths.wiki: validated paths, atomic writes, the cross-process write lock. */
  wiki: WikiService;
  /** Dream consolidation: runs, status, lint; its scheduler runs only where dream.start() is called. */
  dream: DreamService;
  /** What a forget leaves to do after its commit: the wiki clean-up (then index maintenance scrubs the disk). */
  forgetFollowUps: ForgetFollowUps;
  close(): Promise<void>;
}

export function openEngine(options: EngineOptions): Engine {
  const paths = ensureHome(options.home);
  const loaded = options.settings ? { settings: options.settings, problems: [] } : loadSettings(paths.settings);
  const settings = loaded.settings;
  const log = createLog({
    file: paths.log,
    level: logLevelFrom(process.env, settings.log?.level ?? 'info'),
    maxBytes: settings.log?.maxFileBytes,
  });
  const nativeBinding = options.nativeBinding ?? currentNativeBinding();
  const db = openWriter(paths.db, { nativeBinding });
  const releaseLog = adoptProcessLog(log);
  for (const p of loaded.problems) log.warn(`settings: ${p.file}: ${p.key} ${p.reason}`);
  if (processKind() !== 'cli') log.info(`engine opened ${paths.root}`);
  const closers: (() => Promise<void> | void)[] = [];
  let closed: Promise<void> | null = null;
  const engine = {
    paths,
    db,
    clock: options.clock ?? systemClock,
    settings,
    settingsProblems: loaded.problems,
    log,
    events: new EventHub(log),
    requests: new RequestGate(),
    onClose: (fn) => void closers.push(fn),
    close: () =>
      (closed ??= (async () => {
        for (const fn of closers.reverse()) {
          try {
            await fn();
          } catch (e) {
            log.error('error while closing', e);
          }
        }
        db.close();
        if (processKind() !== 'cli') log.info(`engine closed ${paths.root}`);
        releaseLog();
      })()),
  } as Engine;
  // Services: each is built on the engine above, subscribes to engine.events and registers its
  // own closer with engine.onClose (closers run last-registered first, before the db closes).
  // Index maintenance closes last of all, after the read lane, so its final WAL truncation
  // after a forget has no reader to wait for.
  new RecallIndexMaintenance(engine).start();
  // Closes after the services that write (registered before them), before the database.
  engine.walCheckpoints = new WalCheckpoints(engine).start();
  engine.readLane = createReadLane({ dbPath: paths.db, wikiDir: paths.wiki, nativeBinding });
  engine.onClose(() => engine.readLane.close());
  seedWiki(paths.wiki);
  engine.wiki = new WikiService(paths.wiki, paths.locks, engine.clock);
  engine.dream = new DreamService({ db, wiki: engine.wiki, clock: engine.clock, paths, settings });
  engine.onClose(() => engine.dream.stop());
  // After Dream (closes before it) and before index maintenance, whose final scrub waits for it.
  engine.forgetFollowUps = new ForgetFollowUps(engine).start();
  startBlockUpgrade(engine);
  // Before extraction, so its closer runs after extraction's drain has cancelled what is in flight.
  engine.historyImport = new ConversationImportService(engine).start();
  // Registered before extraction, so it closes after extraction's drain.
  engine.extractionProcess = createExtractionProcess();
  engine.onClose(() => engine.extractionProcess.close());
  engine.extraction = new ExtractionService(engine, { rules: engine.extractionProcess }).start();
  engine.legacyImport = new LegacyImportService(engine).start({
    auto: settings.extraction.legacyImportOnStartup,
    shortLived: processKind() === 'cli',
  });
  return engine;
}
