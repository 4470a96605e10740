import type { Db } from '../store/db';
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
}

export interface RunOptions {
  /** Keep running bounded batches until nothing is pending (manual runs); otherwise one batch. */
  drain: boolean;
  /** How long to wait for a run in another process before reporting already_running. */
  waitMs?: number;
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
    let item: WorkItem | null = null;
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

function markProcessed(deps: DreamDeps, items: WorkItem[], topics: string[][]): void {
  const now = deps.clock.now();
  const session = deps.db.prepare(
    `INSERT INTO dream_log (session_id, processed_at, evidence_at, topics_written, updated_at)
     SELECT @id, @at, @evidence, @topics, @now WHERE EXISTS (SELECT 1 FROM sessions WHERE id = @id)
     ON CONFLICT (session_id) DO UPDATE SET processed_at = MAX(processed_at, excluded.processed_at),
       evidence_at = MAX(COALESCE(evidence_at, -1), COALESCE(excluded.evidence_at, -1)),
       topics_written = excluded.topics_written, updated_at = excluded.updated_at`,
  );
  const note = deps.db.prepare(
    `INSERT INTO dream_notes_log (filename, source_mtime, content_hash, processed_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (filename) DO UPDATE SET source_mtime = excluded.source_mtime,
       content_hash = excluded.content_hash, processed_at = excluded.processed_at`,
  );
  writeTx(deps.db, () => {
    items.forEach((item, i) => {
      const t = topics[i]!.length ? JSON.stringify(topics[i]) : null;
      if (item.kind === 'session') {
        // The watermark is the newest message actually consumed, never "now" (reference C7):
        // a message that arrives during the run keeps the session pending.
        session.run({
          id: item.key,
          at: item.transcript.watermark ?? item.pending.latestVisibleAt ?? 0,
          evidence: item.pending.evidenceAt,
          topics: t,
          now,
        });
      } else {
        note.run(item.key, Math.trunc(item.note.mtimeMs), item.note.hash, now);
      }
    });
  });
}

export function pendingCounts(deps: Pick<DreamDeps, 'db' | 'wiki'>): { sessions: number; notes: number } {
  return { sessions: countPendingSessions(deps.db), notes: pendingNotes(deps.db, deps.wiki).length };
}

const PAGES_LISTED = 40;

/** The LOG.md detail line naming the pages a run wrote (the window lists them). */
export function pagesLine(pages: string[]): string {
  const sorted = [...pages].sort();
  const shown = sorted.slice(0, PAGES_LISTED).join(', ');
  return `- pages: ${shown}${sorted.length > PAGES_LISTED ? `, +${sorted.length - PAGES_LISTED} more` : ''}`;
}

/** Lints the wiki and writes LINT.md; never touches dream_log. */
export async function lintAndWrite(deps: Pick<DreamDeps, 'wiki' | 'clock' | 'sessionExists'>) {
  return deps.wiki.withWriteLock(async () => {
    const report = lintWiki(deps.wiki, { now: deps.clock.now(), sessionExists: deps.sessionExists });
    await deps.wiki.write('LINT.md', renderLintReport(report));
    return report;
  });
}

/**
 * A Dream run under the Dream lock: admit a bounded batch, consolidate it, and only after its
 * pages are written advance the watermarks (so a crash at any point repeats work, never loses
 * it, and pages are idempotent so nothing is duplicated). Then rebuild INDEX.md, write LINT.md
 * and append one LOG.md entry, when anything was done.
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
    const settings = deps.settings();
    const consolidator = deps.consolidator();
    const failedKeys = new Set<string>();
    const pages = new Set<string>();
    const errors: string[] = [];
    for (;;) {
      if (held.lost) break;
      const items = admit(deps, settings, failedKeys);
      if (items.length === 0) break;
      const batch = await consolidator.consolidate(items, today(deps.clock.now()));
      batch.pagesWritten.forEach((p) => pages.add(p));
      const done = items.filter((_, i) => batch.outcomes[i]?.ok);
      const doneTopics = batch.outcomes.filter((o) => o?.ok).map((o) => o.topics);
      if (done.length) markProcessed(deps, done, doneTopics);
      items.forEach((item, i) => {
        if (batch.outcomes[i]?.ok) return;
        failedKeys.add(item.key);
        result.failed++;
        errors.push(`${item.kind} ${item.key}: ${batch.outcomes[i]?.error ?? 'no outcome'}`);
      });
      result.sessionsProcessed += done.filter((i) => i.kind === 'session').length;
      result.notesProcessed += done.filter((i) => i.kind === 'note').length;
      if (!options.drain || done.length === 0) break;
    }
    const counts = pendingCounts(deps);
    result.remaining = counts.sessions + counts.notes;
    const worked = result.sessionsProcessed + result.notesProcessed + result.failed > 0;
    if (worked) {
      if (await rebuildIndex(deps.wiki, today(deps.clock.now()))) pages.add('INDEX.md');
      const lint = await lintAndWrite(deps);
      pages.add('LINT.md');
      result.pagesWritten = pages.size;
      const detail = [
        `- pages written: ${result.pagesWritten}`,
        `- remaining pending: ${result.remaining}`,
        `- lint issues: ${lint.issues}`,
        `- consolidator: ${consolidator.name}`,
        pagesLine([...pages]),
        ...errors.slice(0, 10).map((e) => `- failed: ${e.replace(/\s+/g, ' ').slice(0, 300)}`),
      ];
      try {
        await deps.wiki.appendLog(
          `dream | sessions=${result.sessionsProcessed} notes=${result.notesProcessed} failed=${result.failed} drain=${options.drain}\n${detail.join('\n')}`,
        );
      } catch (e) {
        console.error('evoflux: could not append to LOG.md', e);
      }
    }
    return result;
  } finally {
    await held.release();
  }
}
