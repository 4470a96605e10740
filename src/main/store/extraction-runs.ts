import type { Db } from './db';

/** One finished extraction run (migration 81); inside the caller's write transaction. */
export function recordExtractionRun(
  db: Db,
  run: { sessionId: string; outcome: string; factsStored: number; error: string | null },
  at: number,
): void {
  db.prepare(
    `INSERT INTO memory_extraction_runs (session_id, finished_at, outcome, facts_stored, error)
     SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)`,
  ).run(run.sessionId, at, run.outcome, run.factsStored, run.error?.slice(0, 1000) ?? null, run.sessionId);
}
