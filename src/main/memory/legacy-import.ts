import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeFileAtomically } from '../wiki/atomic';
import type { EngineBase } from '../engine-parts';
import { writeTx, type Db } from '../store/db';
import { recordFacts } from '../store/facts';
import { getSession } from '../store/sessions';
import { importedBulletsHash, rememberLegacyImport } from '../store/legacy-import-sessions';
import { CONFIDENCES, FACT_KINDS, SCOPES, type Confidence, type FactKind, type Scope } from '../../shared/domain';
import { invalid } from '../../shared/errors';
import { scopesFor } from './scope';
import { validateCandidates } from './extraction/validate';

/**
 * Import of historical extraction-note projections: Markdown bullets an older version appended
 * to the daily notes (`<home>/wiki/notes/*.md`), one block per source session:
 *
 *   <!-- evoflux-memory-facts:v1 source=session:<session uuid> -->
 *
 *   - [project/convention/high] Use pnpm, never npm.     (annotated: scope/kind/confidence)
 *   - The API is served from /v2.                         (plain: a project fact, medium)
 *
 * A `## ` heading (the next timestamped note entry) ends the block. The oldest format
 * ("Auto-extracted from session `abcd1234`") names no full session id and is not imported.
 * Old bullets never become user-global, whatever they say: `user` is read as the most specific
 * local scope of the source session (project, then workspace, folder, session). Each bullet is
 * validated like an extracted candidate (length, kind, secrets) and stored with origin
 * legacy_note and evidence pointing at its source session (no message).
 *
 * One write transaction per source session (larger ones in chunks), yielding to the event loop
 * between them, so live turns always get the writer; each committed session is remembered in
 * legacy_import_sessions, so a restart after a crash continues where it stopped, and evidence is
 * unique per (fact, session), so nothing is reinforced twice. A sentinel in the data home,
 * written atomically at the end, stops the rescan on later startups.
 */
export const LEGACY_MARKER = 'evoflux-memory-facts:v1';
export const SENTINEL_FILE = '.legacy-notes-imported';
/** Facts per write transaction; a normal session has far fewer and commits once. */
export const BULLETS_PER_TX = 250;

export interface LegacyBullet {
  sessionId: string;
  text: string;
  scope: Scope;
  kind: FactKind;
  confidence: Confidence;
}

const MARKER_SOURCE = /source=session:([0-9a-fA-F-]{32,36})\b/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ANNOTATED = new RegExp(
  `^- \\[(${SCOPES.join('|')})/(${FACT_KINDS.join('|')})/(${CONFIDENCES.join('|')})\\]\\s+(.+)$`,
);

function normalizeSessionId(raw: string): string | null {
  let id = raw.toLowerCase();
  if (/^[0-9a-f]{32}$/.test(id))
    id = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
  return UUID.test(id) ? id : null;
}

/** The bullets of one notes file, in order. */
export function parseLegacyNotes(text: string): LegacyBullet[] {
  const out: LegacyBullet[] = [];
  let current: string | null = null;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trimEnd();
    if (line.includes(LEGACY_MARKER)) {
      const m = line.match(MARKER_SOURCE);
      current = m ? normalizeSessionId(m[1]!) : null;
      continue;
    }
    if (line.startsWith('## ')) {
      current = null;
      continue;
    }
    if (!current || !line.startsWith('- ')) continue;
    const annotated = line.match(ANNOTATED);
    if (annotated) {
      out.push({
        sessionId: current,
        scope: annotated[1] as Scope,
        kind: annotated[2] as FactKind,
        confidence: annotated[3] as Confidence,
        text: annotated[4]!.trim(),
      });
    } else {
      out.push({
        sessionId: current,
        scope: 'project',
        kind: 'fact',
        confidence: 'medium',
        text: line.slice(2).trim(),
      });
    }
  }
  return out;
}

export const defaultNotesDir = (paths: EngineBase['paths']): string => path.join(paths.wiki, 'notes');
export const sentinelPath = (paths: EngineBase['paths']): string => path.join(paths.root, SENTINEL_FILE);

function markdownFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

/** `--from DIR`: the .md files in DIR, or in DIR/notes when DIR is a wiki root. */
export function resolveNotesDir(from: string): string {
  const dir = path.resolve(from);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    /* reported below */
  }
  if (!isDir) throw invalid('from', `is not a directory: ${dir}`);
  if (markdownFiles(dir).length === 0 && markdownFiles(path.join(dir, 'notes')).length > 0)
    return path.join(dir, 'notes');
  return dir;
}

export interface LegacyImportReport {
  /** The sentinel says it already ran (and force was not given). */
  skipped: boolean;
  source: string;
  files: number;
  bullets: number;
  /** Source sessions committed by this run. */
  sessions: number;
  /** Committed by an earlier (possibly interrupted) run with the same bullets. */
  sessionsAlreadyImported: number;
  /** Named by a note but no longer in the database. */
  sessionsMissing: number;
  /** Facts observed (created or already there). */
  facts: number;
  factsCreated: number;
  evidenceCreated: number;
  rejected: number;
  /** Stopped early (shutdown); the next run continues. */
  interrupted: boolean;
  sentinel: string | null;
  transactions: number;
  p99TxMs: number;
  longestTxMs: number;
  durationMs: number;
}

export interface LegacyImportOptions {
  from?: string;
  force?: boolean;
  signal?: AbortSignal;
  /** Asked between two source sessions: true stops the run there (interrupted, resumable). */
  shouldStop?(): boolean;
  /** Called after each committed source session (progress output, crash tests). */
  onSession?(done: number, total: number, sessionId: string): void;
  /** Called after each source session, whatever became of it: done of total. */
  onProgress?(done: number, total: number): void;
}

interface ImportDeps {
  db: Db;
  paths: EngineBase['paths'];
  now(): number;
  warn(message: string): void;
}

const bulletsHash = (bullets: LegacyBullet[]) =>
  createHash('sha256')
    .update(JSON.stringify(bullets.map((b) => [b.scope, b.kind, b.confidence, b.text])))
    .digest('hex');

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function emptyReport(source: string): LegacyImportReport {
  return {
    skipped: false,
    source,
    files: 0,
    bullets: 0,
    sessions: 0,
    sessionsAlreadyImported: 0,
    sessionsMissing: 0,
    facts: 0,
    factsCreated: 0,
    evidenceCreated: 0,
    rejected: 0,
    interrupted: false,
    sentinel: null,
    transactions: 0,
    p99TxMs: 0,
    longestTxMs: 0,
    durationMs: 0,
  };
}

/** Every bullet of every notes file, grouped by source session; unreadable files are skipped. */
async function readBulletsBySession(
  files: string[],
  report: LegacyImportReport,
  warn: ImportDeps['warn'],
): Promise<Map<string, LegacyBullet[]>> {
  const bySession = new Map<string, LegacyBullet[]>();
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      warn(`legacy import: cannot read ${file}: ${(e as Error).message}`);
      continue;
    }
    report.files++;
    for (const b of parseLegacyNotes(text)) {
      const list = bySession.get(b.sessionId) ?? [];
      if (list.length === 0) bySession.set(b.sessionId, list);
      list.push(b);
      report.bullets++;
    }
  }
  return bySession;
}

type SessionOutcome = 'imported' | 'already' | 'missing';

/** Runs write transactions and keeps their durations for the report. */
class TimedWriter {
  readonly durations: number[] = [];
  constructor(private readonly db: Db) {}

  run<T>(fn: () => T): T {
    const t0 = performance.now();
    try {
      return writeTx(this.db, fn);
    } finally {
      this.durations.push(performance.now() - t0);
    }
  }

  summarize(report: LegacyImportReport): void {
    const sorted = [...this.durations].sort((x, y) => x - y);
    const round = (ms: number | undefined) => Math.round((ms ?? 0) * 100) / 100;
    report.longestTxMs = round(sorted[sorted.length - 1]);
    report.transactions = sorted.length;
    report.p99TxMs = round(sorted[Math.floor(sorted.length * 0.99)]);
  }
}

/**
 * One source session's bullets, validated outside the writer and committed in chunks; the last
 * chunk also records the session as imported, so a crash between chunks redoes only the session.
 */
async function importSession(
  deps: ImportDeps,
  writer: TimedWriter,
  report: LegacyImportReport,
  sessionId: string,
  bullets: LegacyBullet[],
): Promise<SessionOutcome> {
  const hash = bulletsHash(bullets);
  const alreadyDone = () => importedBulletsHash(deps.db, sessionId) === hash;
  const session = getSession(deps.db, sessionId);
  if (!session) return 'missing';
  if (alreadyDone()) return 'already';
  // Validation (secret patterns, folding) is CPU work: done before the write transaction so
  // the writer is held only for the inserts. A session's scopes never change after creation.
  const { accepted, rejected } = validateCandidates(
    bullets.map((b) => ({ ...b, messageId: null })),
    scopesFor(deps.db, session),
    { neverUser: true },
  );
  report.rejected += rejected.filter((r) => r.reason !== 'duplicate').length;
  const chunks: (typeof accepted)[] = [];
  for (let i = 0; i < accepted.length; i += BULLETS_PER_TX) chunks.push(accepted.slice(i, i + BULLETS_PER_TX));
  if (chunks.length === 0) chunks.push([]);
  let outcome: SessionOutcome = 'imported';
  for (let i = 0; i < chunks.length && outcome === 'imported'; i++) {
    const last = i === chunks.length - 1;
    outcome = writer.run(() => {
      // Another process may have deleted or imported the session since the read above.
      if (!getSession(deps.db, sessionId)) return 'missing';
      if (alreadyDone()) return 'already';
      const now = deps.now();
      const observed = chunks[i]!.map((c) => ({
        text: c.text,
        kind: c.kind,
        confidence: c.confidence,
        origin: 'legacy_note' as const,
        target: c.target,
        sessionId,
        messageId: null,
      }));
      for (const r of recordFacts(deps.db, observed, now)) {
        report.facts++;
        if (r.created) report.factsCreated++;
        if (r.created || r.reinforced) report.evidenceCreated++;
      }
      if (last) rememberLegacyImport(deps.db, sessionId, hash, bullets.length, now);
      return 'imported';
    });
    if (outcome === 'imported' && !last) await yieldToEventLoop();
  }
  return outcome;
}

function countOutcome(report: LegacyImportReport, outcome: SessionOutcome): void {
  if (outcome === 'missing') report.sessionsMissing++;
  else if (outcome === 'already') report.sessionsAlreadyImported++;
  else report.sessions++;
}

export async function importLegacyNotes(
  deps: ImportDeps,
  options: LegacyImportOptions = {},
): Promise<LegacyImportReport> {
  const started = performance.now();
  const source = options.from ? resolveNotesDir(options.from) : defaultNotesDir(deps.paths);
  const sentinel = sentinelPath(deps.paths);
  const report = emptyReport(source);
  const finish = (extra: Partial<LegacyImportReport> = {}): LegacyImportReport => {
    report.durationMs = Math.round(performance.now() - started);
    return { ...report, ...extra };
  };
  if (!options.force && existsSync(sentinel)) return finish({ skipped: true, sentinel });
  if (!existsSync(source)) return finish();

  const bySession = await readBulletsBySession(markdownFiles(source), report, deps.warn);
  const writer = new TimedWriter(deps.db);
  let done = 0;
  for (const [sessionId, bullets] of bySession) {
    if (options.signal?.aborted || options.shouldStop?.()) {
      report.interrupted = true;
      break;
    }
    const outcome = await importSession(deps, writer, report, sessionId, bullets);
    countOutcome(report, outcome);
    done++;
    if (outcome === 'imported') options.onSession?.(done, bySession.size, sessionId);
    options.onProgress?.(done, bySession.size);
    await yieldToEventLoop();
  }

  if (!report.interrupted) {
    await writeFileAtomically(
      sentinel,
      `legacy notes import completed ${new Date(deps.now()).toISOString()} from ${source}: ` +
        `${report.files} files, ${report.sessions + report.sessionsAlreadyImported} sessions, ${report.facts} facts\n`,
    );
    report.sentinel = sentinel;
  }
  writer.summarize(report);
  return finish();
}

/** True when the data home has notes files and no sentinel: the first startup after upgrading. */
export function legacyImportPending(paths: EngineBase['paths']): boolean {
  return !existsSync(sentinelPath(paths)) && markdownFiles(defaultNotesDir(paths)).length > 0;
}

/**
 * What a short-lived process (a CLI command) imports before it exits: the import runs after the
 * command's output, one transaction per source session, until this many sessions or this much
 * time have gone by (at least one session always, so every run makes progress).
 */
export const SHORT_LIVED_IMPORT_SESSIONS = 100;
export const SHORT_LIVED_IMPORT_MS = 200;

export interface LegacyImportStartOptions {
  /** Import pending legacy notes without being asked (extraction.legacyImportOnStartup). */
  auto: boolean;
  /**
   * A CLI command: instead of importing in the background while the command runs (and being
   * stopped at once when it exits), import a bounded batch when the engine closes.
   */
  shortLived?: boolean;
}

/**
 * One import at a time per engine. In a long-running process the startup import runs in the
 * background; close() stops it between two sessions (the next startup continues) before the
 * database closes. A short-lived process imports a bounded batch at close instead.
 */
export class LegacyImportService {
  private current: { promise: Promise<LegacyImportReport>; source: string; force: boolean } | null = null;
  private readonly controller = new AbortController();

  constructor(private readonly engine: Pick<EngineBase, 'db' | 'paths' | 'clock' | 'onClose' | 'log'>) {}

  start(options: LegacyImportStartOptions = { auto: true }): this {
    const auto = options.auto && legacyImportPending(this.engine.paths);
    this.engine.onClose(async () => {
      if (auto && options.shortLived && !this.current) await this.importBatch();
      this.controller.abort();
      await this.current?.promise.catch(() => {});
    });
    if (auto && !options.shortLived) {
      void this.run({}).then(
        (r) => this.logged(r),
        (e) => this.engine.log.warn(`legacy import failed: ${(e as Error).message}`),
      );
    }
    return this;
  }

  private logged(r: LegacyImportReport): void {
    if (r.sessions === 0) return;
    const state = r.interrupted ? 'paused, continues at the next start' : 'complete';
    this.engine.log.info(`legacy import: ${r.sessions} sessions, ${r.facts} facts from ${r.source} (${state})`);
  }

  /** The short-lived process's share of the startup import, at close. */
  private async importBatch(): Promise<void> {
    const started = performance.now();
    let committed = 0;
    try {
      const report = await this.run({
        onSession: () => void committed++,
        shouldStop: () =>
          committed > 0 &&
          (committed >= SHORT_LIVED_IMPORT_SESSIONS || performance.now() - started >= SHORT_LIVED_IMPORT_MS),
      });
      this.logged(report);
    } catch (e) {
      this.engine.log.warn(`legacy import failed: ${(e as Error).message}`);
    }
  }

  async run(options: Omit<LegacyImportOptions, 'signal'>): Promise<LegacyImportReport> {
    const source = options.from ? resolveNotesDir(options.from) : defaultNotesDir(this.engine.paths);
    if (this.current) {
      const running = this.current;
      const report = await running.promise.catch(() => null);
      // The same import was already under way (the startup one): its report is the answer.
      if (report && running.source === source && !options.force && !report.interrupted) return report;
    }
    const promise = importLegacyNotes(
      {
        db: this.engine.db,
        paths: this.engine.paths,
        now: () => this.engine.clock.now(),
        warn: (m) => this.engine.log.warn(m),
      },
      { ...options, signal: this.controller.signal },
    );
    const entry = { promise, source, force: !!options.force };
    this.current = entry;
    try {
      return await promise;
    } finally {
      if (this.current === entry) this.current = null;
    }
  }
}
