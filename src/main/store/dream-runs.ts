import type { Db } from './db';

/** What a Dream run has done so far, kept until its INDEX.md, LINT.md and LOG.md steps are done. */
export interface UnfinishedRun {
  runId: string;
  startedAt: number;
  drain: boolean;
  consolidator: string;
  sessions: number;
  notes: number;
  failed: number;
  pages: string[];
  errors: string[];
}

interface Row {
  run_id: string;
  started_at: number;
  drain: number;
  consolidator: string;
  sessions: number;
  notes: number;
  failed: number;
  pages: string;
  errors: string;
}

const MAX_ERRORS = 10;

const toRun = (r: Row): UnfinishedRun => ({
  runId: r.run_id,
  startedAt: r.started_at,
  drain: r.drain === 1,
  consolidator: r.consolidator,
  sessions: r.sessions,
  notes: r.notes,
  failed: r.failed,
  pages: JSON.parse(r.pages) as string[],
  errors: JSON.parse(r.errors) as string[],
});

export interface BatchRecord {
  sessions: number;
  notes: number;
  failed: number;
  pages: string[];
  errors: string[];
}

/**
 * Adds one batch to its run's record; call it inside the transaction that commits the batch's
 * watermarks, so a run is either recorded with them or not at all.
 */
export function recordBatch(
  db: Db,
  run: Pick<UnfinishedRun, 'runId' | 'startedAt' | 'drain' | 'consolidator'>,
  batch: BatchRecord,
): void {
  const row = db.prepare('SELECT * FROM dream_unfinished_runs WHERE run_id = ?').get(run.runId) as Row | undefined;
  const before = row ? toRun(row) : { sessions: 0, notes: 0, failed: 0, pages: [], errors: [] };
  db.prepare(
    `INSERT INTO dream_unfinished_runs (run_id, started_at, drain, consolidator, sessions, notes, failed, pages, errors)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (run_id) DO UPDATE SET sessions = excluded.sessions, notes = excluded.notes,
       failed = excluded.failed, pages = excluded.pages, errors = excluded.errors`,
  ).run(
    run.runId,
    run.startedAt,
    run.drain ? 1 : 0,
    run.consolidator,
    before.sessions + batch.sessions,
    before.notes + batch.notes,
    before.failed + batch.failed,
    JSON.stringify([...new Set([...before.pages, ...batch.pages])]),
    JSON.stringify([...before.errors, ...batch.errors].slice(0, MAX_ERRORS)),
  );
}

/** Runs whose finishing steps have not completed, oldest first. */
export function unfinishedRuns(db: Db): UnfinishedRun[] {
  return (db.prepare('SELECT * FROM dream_unfinished_runs ORDER BY started_at, run_id').all() as Row[]).map(toRun);
}

export function finishedRun(db: Db, runId: string): void {
  db.prepare('DELETE FROM dream_unfinished_runs WHERE run_id = ?').run(runId);
}
