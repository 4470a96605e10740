import type { Db } from './db';
import { COMPLETED_RESPONSE_SQL } from './messages';

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

export interface ExtractionStatusRow {
  id: string;
  title: string | null;
  /** Completed responses in the session so far. */
  responses: number;
  /** Set when the session has an extraction cursor. */
  state_session: string | null;
}

/**
 * The top-level sessions extraction status lists: one session, or every one that has a cursor or
 * at least one completed response, most recently active first.
 */
export function extractionStatusRows(db: Db, options: { sessionId?: string; limit: number }): ExtractionStatusRow[] {
  const hasWork = `(e.session_id IS NOT NULL OR EXISTS (SELECT 1 FROM session_messages m WHERE m.session_id = s.id AND ${COMPLETED_RESPONSE_SQL}))`;
  return db
    .prepare(
      `SELECT s.id, s.title,
         (SELECT count(*) FROM session_messages m WHERE m.session_id = s.id AND ${COMPLETED_RESPONSE_SQL}) AS responses,
         e.session_id AS state_session
       FROM sessions s LEFT JOIN memory_extraction_states e ON e.session_id = s.id
       WHERE s.kind = 'top-level' AND ${options.sessionId ? 's.id = @sessionId' : hasWork}
       ORDER BY COALESCE(e.updated_at, s.updated_at) DESC, s.id DESC LIMIT @limit`,
    )
    .all({ sessionId: options.sessionId, limit: options.limit }) as ExtractionStatusRow[];
}
