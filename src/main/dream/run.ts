import type { Db } from '../store/db';
import { dreamLogWriters } from '../store/dream-log';
import { writeTx } from '../store/db';
import { getSession } from '../store/sessions';
import type { Clock } from '../../shared/clock';
import type { Settings } from '../settings';
import type { WikiService } from '../wiki/service';
import { lintWiki, renderLintReport, type LintOptions } from '../wiki/lint';
import { countPendingSessions, pendingNotes, pendingSessions } from './queue';
import { buildTranscript } from './transcript';
import { rebuildIndex } from './index-page';
import type { DreamLock } from './run-lock';
import type { Consolidator, WorkItem } from './work';
import { finishedRun, recordBatch, unfinishedRuns, type UnfinishedRun } from '../store/dream-runs';
import { newId } from '../../shared/ids';
import { processLog } from '../log';

export type DreamSettings = Settings['dream'];

export interface DreamRunResult {
  status: 'completed' | 'already_running';
  sessionsProcessed: number;
  notesProcessed: number;
  remaining: number;
  failed: number;
  pagesWritten: number;
}

export interface DreamDeps {
  db: Db;
  wiki: WikiService;
  clock: Clock;
  lock: DreamLock;
  settings(): DreamSettings;
  consolidator(): Consolidator;
  sessionExists: NonNullable<LintOptions['sessionExists']>;
  mentions: NonNullable<LintOptions['mentions']>;
}

export interface RunOptions {
  /** Keep running bounded batches until nothing is pending (manual runs); otherwise one batch. */
  drain: boolean;
  /** How long to wait for a run in another process before reporting already_running. */
  waitMs?: number;
  /** Called after each batch: items done (processed or failed) of those pending when the run began. */
  onProgress?(done: number, total: number): void;
}

const today = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * One bounded batch: sessions and notes alternate (session first), so when both are pending
 * at least one of each is admitted whatever the session backlog. Admission stops at
 * maxSourcesPerRun items or when the next item would pass maxInputChars; the first item of
 * each kind is admitted regardless, so neither queue can starve.
 */
export function admit(deps: DreamDeps, s: DreamSettings, failed: ReadonlySet<string>): WorkItem[] {
  const sessions = pendingSessions(deps.db, s.maxSourcesPerRun, failed);
  const notes = pendingNotes(deps.db, deps.wiki, failed);
  const cap = sessions.length && notes.length ? Math.max(s.maxSourcesPerRun, 2) : s.maxSourcesPerRun;
  const items: WorkItem[] = [];
  let chars = 0;
  let si = 0;
  let ni = 0;
  let haveSession = false;
  let haveNote = false;
  let sessionTurn = true;
  while (items.length < cap && (si < sessions.length || ni < notes.length)) {
    const takeSession: boolean = (sessionTurn && si < sessions.length) || ni >= notes.length;
    sessionTurn = !takeSession;
    let item: WorkItem;
    if (takeSession) {
      const pending = sessions[si++]!;
      const session = getSession(deps.db, pending.id);
      if (!session) continue;
      const transcript = buildTranscript(deps.db, pending.id, s.maxInputChars);
      item = { kind: 'session', key: pending.id, pending, session, transcript, chars: transcript.text.length };
    } else {
      const note = notes[ni++]!;
      item = { kind: 'note', key: note.name, note, chars: Math.min(note.content.length, s.maxInputChars) };
    }
    const firstOfKind = item.kind === 'session' ? !haveSession : !haveNote;
    if (items.length > 0 && !firstOfKind && chars + item.chars > s.maxInputChars) break;
    items.push(item);
    chars += item.chars;
    if (item.kind === 'session') haveSession = true;
    else haveNote = true;
  }
  return items;
}

/** Advances the watermarks of the items done; runs inside the batch's transaction. */
function markProcessed(deps: DreamDeps, items: WorkItem[], topics: string[][]): void {
  const now = deps.clock.now();
  const log = dreamLogWriters(deps.db);
  items.forEach((item, i) => {
    const t = topics[i]!.length ? JSON.stringify(topics[i]) : null;
    if (item.kind === 'session') {
      // The watermark is the newest message actually consumed, never "now":
      // a message that arrives during the run keeps the session pending.
      log.session({
        id: item.key,
        at: item.transcript.watermark ?? item.pending.latestVisibleAt ?? 0,
        evidence: item.pending.evidenceAt,
        topics: t,
        now,
      });
    } else {
      log.note(item.key, Math.trunc(item.note.mtimeMs), item.note.hash, now);
    }
  });
}

export function pendingCounts(deps: Pick<DreamDeps, 'db' | 'wiki'>): { sessions: number; notes: number } {
  return { sessions: countPendingSessions(deps.db), notes: pendingNotes(deps.db, deps.wiki).length };
}

const PAGES_LISTED = 40;

/**
 * The LOG.md detail line naming the pages a run wrote (the window lists them). Source pages are
 * only counted: their names carry part of a session's id, and LOG.md is append-only, so a name
 * written here would outlive a forget of that session.
 */
export function pagesLine(pages: string[]): string {
  const sources = pages.filter((p) => p.startsWith('sources/session-')).length;
  const sorted = pages.filter((p) => !p.startsWith('sources/session-')).sort();
  const named = sorted.slice(0, PAGES_LISTED);
  const rest = sorted.length - named.length;
  const parts = [
    ...named,
    ...(rest > 0 ? [`+${rest} more`] : []),
    ...(sources > 0 ? [`${sources} session source page${sources === 1 ? '' : 's'}`] : []),
  ];
  return `- pages: ${parts.join(', ')}`;
}

/** Lints the wiki and writes LINT.md; never touches dream_log. */
export async function lintAndWrite(deps: Pick<DreamDeps, 'wiki' | 'clock' | 'sessionExists' | 'mentions'>) {
  return deps.wiki.withWriteLock(async () => {
    const report = lintWiki(deps.wiki, {
      now: deps.clock.now(),
      sessionExists: deps.sessionExists,
      mentions: deps.mentions,
    });
    await deps.wiki.write('LINT.md', renderLintReport(report));
    return report;
  });
}

interface RunState {
  run: Pick<UnfinishedRun, 'runId' | 'startedAt' | 'drain' | 'consolidator'>;
  result: DreamRunResult;
  pages: Set<string>;
  failedKeys: Set<string>;
}

/**
 * One bounded batch: consolidate, then commit its watermarks together with the run's durable
 * record in one transaction. Returns how many items were done.
 */
async function runBatch(deps: DreamDeps, consolidator: Consolidator, items: WorkItem[], state: RunState) {
  const batch = await consolidator.consolidate(items, today(deps.clock.now()));
  batch.pagesWritten.forEach((p) => state.pages.add(p));
  const done = items.filter((_, i) => batch.outcomes[i]?.ok);
  const doneTopics = batch.outcomes.filter((o) => o?.ok).map((o) => o.topics);
  const errors: string[] = [];
  items.forEach((item, i) => {
    if (batch.outcomes[i]?.ok) return;
    state.failedKeys.add(item.key);
    errors.push(`${item.kind} ${item.key}: ${batch.outcomes[i]?.error ?? 'no outcome'}`);
  });
  const counts = {
    sessions: done.filter((i) => i.kind === 'session').length,
    notes: done.filter((i) => i.kind === 'note').length,
    failed: errors.length,
  };
  writeTx(deps.db, () => {
    markProcessed(deps, done, doneTopics);
    recordBatch(deps.db, state.run, { ...counts, pages: batch.pagesWritten, errors });
  });
  state.result.sessionsProcessed += counts.sessions;
  state.result.notesProcessed += counts.notes;
  state.result.failed += counts.failed;
  return done.length;
}

/**
 * A run's finishing steps, for the run that just did its batches or for one a kill interrupted
 * after its watermarks were committed: rebuild INDEX.md, write LINT.md, append the LOG.md entry
 * (once: the entry names the run, so a finish repeated after a kill does not log it twice), then
 * drop the run's record.
 */
async function finishRun(deps: DreamDeps, run: UnfinishedRun, interrupted: boolean): Promise<number> {
  const pages = new Set(run.pages);
  if (await rebuildIndex(deps.wiki, today(deps.clock.now()))) pages.add('INDEX.md');
  const lint = await lintAndWrite(deps);
  pages.add('LINT.md');
  const counts = pendingCounts(deps);
  const marker = `- run: ${run.runId}`;
  const detail = [
    `- pages written: ${pages.size}`,
    `- remaining pending: ${counts.sessions + counts.notes}`,
    `- lint issues: ${lint.issues}`,
    `- consolidator: ${run.consolidator}`,
    pagesLine([...pages]),
    ...run.errors.map((e) => `- failed: ${e.replace(/\s+/g, ' ').slice(0, 300)}`),
    ...(interrupted ? ['- finished by the next run: this run was interrupted after its pages were written'] : []),
    marker,
  ];
  try {
    if (!(deps.wiki.tryRead('LOG.md')?.content ?? '').includes(marker)) {
      await deps.wiki.appendLog(
        `dream | sessions=${run.sessions} notes=${run.notes} failed=${run.failed} drain=${run.drain}\n${detail.join('\n')}`,
      );
    }
  } catch (e) {
    processLog.error('dream: could not append to LOG.md', e);
  }
  writeTx(deps.db, () => finishedRun(deps.db, run.runId));
  return pages.size;
}

/** Finishes the runs a kill left behind (their watermarks are in, their index and log entry are not). */
async function finishInterruptedRuns(deps: DreamDeps): Promise<void> {
  for (const run of unfinishedRuns(deps.db)) await finishRun(deps, run, true);
}

/** Counts items as batches finish; the total is what was pending at the start (or more, if more came). */
function batchProgress(deps: DreamDeps, options: RunOptions): ((items: number) => void) | null {
  const report = options.onProgress;
  if (!report) return null;
  const counts = pendingCounts(deps);
  let total = counts.sessions + counts.notes;
  let done = 0;
  return (items) => {
    done += items;
    total = Math.max(total, done);
    report(done, total);
  };
}

/**
 * A Dream run under the Dream lock: first finish any run a kill interrupted, then admit bounded
 * batches and consolidate them; only after a batch's pages are written are its watermarks
 * committed (so a crash at any point repeats work, never loses it, and pages are idempotent so
 * nothing is duplicated). Then rebuild INDEX.md, write LINT.md and append one LOG.md entry,
 * when anything was done.
 */
export async function runDream(deps: DreamDeps, options: RunOptions): Promise<DreamRunResult> {
  const held = await deps.lock.acquire(options.waitMs ?? 0);
  const result: DreamRunResult = {
    status: 'completed',
    sessionsProcessed: 0,
    notesProcessed: 0,
    remaining: 0,
    failed: 0,
    pagesWritten: 0,
  };
  if (!held) {
    const counts = pendingCounts(deps);
    return { ...result, status: 'already_running', remaining: counts.sessions + counts.notes };
  }
  try {
    await deps.wiki.cleanLeftovers();
    await finishInterruptedRuns(deps);
    const settings = deps.settings();
    const consolidator = deps.consolidator();
    const run = { runId: newId(), startedAt: deps.clock.now(), drain: options.drain, consolidator: consolidator.name };
    const state: RunState = { run, result, pages: new Set(), failedKeys: new Set() };
    const progress = batchProgress(deps, options);
    for (;;) {
      if (held.lost) break;
      const items = admit(deps, settings, state.failedKeys);
      if (items.length === 0) break;
      const done = await runBatch(deps, consolidator, items, state);
      progress?.(items.length);
      if (!options.drain || done === 0) break;
    }
    const counts = pendingCounts(deps);
    result.remaining = counts.sessions + counts.notes;
    const recorded = unfinishedRuns(deps.db).find((r) => r.runId === run.runId);
    if (recorded) result.pagesWritten = await finishRun(deps, recorded, false);
    return result;
  } finally {
    await held.release();
  }
}
