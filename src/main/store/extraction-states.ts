import type { Db } from './db';

/**
 * The rows of memory_extraction_states: one durable extraction cursor per top-level session.
 * The state machine that moves them (claim, advance, fail, reclaim) is memory/extraction/cursor.
 */
export type CursorStatus = 'idle' | 'processing' | 'failed';

export interface CursorState {
  sessionId: string;
  cursorSeq: number;
  lastResponseCount: number;
  pendingResponseCount: number | null;
  pendingCursorSeq: number | null;
  status: CursorStatus;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  attempts: number;
  consecutiveFailures: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  factsStored: number;
  candidatesRejected: number;
  lastSuccessAt: number | null;
  lastExtractor: string | null;
  updatedAt: number;
}

interface StateRow {
  session_id: string;
  cursor_seq: number;
  last_response_count: number;
  pending_response_count: number | null;
  pending_cursor_seq: number | null;
  status: CursorStatus;
  lease_owner: string | null;
  lease_expires_at: number | null;
  attempts: number;
  consecutive_failures: number;
  last_error: string | null;
  next_attempt_at: number | null;
  facts_stored: number;
  candidates_rejected: number;
  last_success_at: number | null;
  last_extractor: string | null;
  updated_at: number;
}

const toState = (r: StateRow): CursorState => ({
  sessionId: r.session_id,
  cursorSeq: r.cursor_seq,
  lastResponseCount: r.last_response_count,
  pendingResponseCount: r.pending_response_count,
  pendingCursorSeq: r.pending_cursor_seq,
  status: r.status,
  leaseOwner: r.lease_owner,
  leaseExpiresAt: r.lease_expires_at,
  attempts: r.attempts,
  consecutiveFailures: r.consecutive_failures,
  lastError: r.last_error,
  nextAttemptAt: r.next_attempt_at,
  factsStored: r.facts_stored,
  candidatesRejected: r.candidates_rejected,
  lastSuccessAt: r.last_success_at,
  lastExtractor: r.last_extractor,
  updatedAt: r.updated_at,
});

export const ERROR_TEXT_MAX = 1000;

export function getCursor(db: Db, sessionId: string): CursorState | undefined {
  const row = db.prepare('SELECT * FROM memory_extraction_states WHERE session_id = ?').get(sessionId) as
    StateRow | undefined;
  return row && toState(row);
}

export function writeClaim(
  db: Db,
  c: { sessionId: string; owner: string; expires: number; count: number; pendingSeq: number; now: number },
): void {
  db.prepare(
    `INSERT INTO memory_extraction_states (session_id, status, lease_owner, lease_expires_at, pending_response_count,
       pending_cursor_seq, attempts, updated_at)
     VALUES (@sessionId, 'processing', @owner, @expires, @count, @pendingSeq, 1, @now)
     ON CONFLICT (session_id) DO UPDATE SET status = 'processing', lease_owner = @owner, lease_expires_at = @expires,
       pending_response_count = @count, pending_cursor_seq = @pendingSeq, attempts = attempts + 1, updated_at = @now`,
  ).run(c);
}

export interface AdvanceRow {
  sessionId: string;
  seq: number;
  count: number;
  status: CursorStatus;
  owner: string | null;
  expires: number | null;
  pendingCount: number | null;
  pendingSeq: number | null;
  stored: number;
  rejected: number;
  now: number;
  extractor: string;
}

export function writeAdvance(db: Db, a: AdvanceRow): void {
  db.prepare(
    `UPDATE memory_extraction_states SET cursor_seq = @seq, last_response_count = MAX(last_response_count, @count),
       status = @status, lease_owner = @owner, lease_expires_at = @expires,
       pending_response_count = @pendingCount, pending_cursor_seq = @pendingSeq,
       consecutive_failures = 0, last_error = NULL, next_attempt_at = NULL,
       facts_stored = facts_stored + @stored, candidates_rejected = candidates_rejected + @rejected,
       last_success_at = @now, last_extractor = @extractor, updated_at = @now
     WHERE session_id = @sessionId`,
  ).run(a);
}

export function writeFailure(
  db: Db,
  sessionId: string,
  f: { error: string; failures: number; nextAttemptAt: number; now: number },
): void {
  db.prepare(
    `UPDATE memory_extraction_states SET status = 'failed', lease_owner = NULL, lease_expires_at = NULL,
       pending_response_count = NULL, pending_cursor_seq = NULL, last_error = ?, consecutive_failures = ?,
       next_attempt_at = ?, updated_at = ?
     WHERE session_id = ?`,
  ).run(f.error, f.failures, f.nextAttemptAt, f.now, sessionId);
}

/** Processing rows whose lease has expired (or was never set). */
export function expiredLeases(db: Db, now: number): { session_id: string; lease_owner: string | null }[] {
  return db
    .prepare(
      `SELECT session_id, lease_owner FROM memory_extraction_states
       WHERE status = 'processing' AND (lease_expires_at IS NULL OR lease_expires_at <= ?)`,
    )
    .all(now) as { session_id: string; lease_owner: string | null }[];
}

/** A processing row becomes failed and due now, with why. */
export function markLeaseExpired(db: Db, sessionId: string, now: number, error: string): void {
  db.prepare(
    `UPDATE memory_extraction_states SET status = 'failed', lease_owner = NULL, lease_expires_at = NULL,
       pending_response_count = NULL, pending_cursor_seq = NULL, next_attempt_at = ?, updated_at = ?,
       last_error = ?
     WHERE session_id = ? AND status = 'processing'`,
  ).run(now, now, error, sessionId);
}

/** Failed cursors whose backoff has passed. */
export function dueRetries(db: Db, now: number, limit = 50): string[] {
  return (
    db
      .prepare(
        `SELECT session_id FROM memory_extraction_states WHERE status = 'failed' AND COALESCE(next_attempt_at, 0) <= ?
         ORDER BY next_attempt_at LIMIT ?`,
      )
      .all(now, limit) as { session_id: string }[]
  ).map((r) => r.session_id);
}

/** extraction.retry: a failed cursor becomes due now. */
export function makeDueNow(db: Db, sessionId: string, now: number): void {
  db.prepare(
    `UPDATE memory_extraction_states SET next_attempt_at = ?, updated_at = ? WHERE session_id = ? AND status = 'failed'`,
  ).run(now, now, sessionId);
}

/** True when at least one processing row's lease has expired: one index probe, no write lock. */
export function anyExpiredLease(db: Db, now: number): boolean {
  const row = db
    .prepare(
      `SELECT 1 FROM memory_extraction_states
       WHERE status = 'processing' AND (lease_expires_at IS NULL OR lease_expires_at <= ?) LIMIT 1`,
    )
    .get(now);
  return row !== undefined;
}

/** Cursors running and failed right now. */
export function extractionStateCounts(db: Db): { processing: number; failed: number } {
  const rows = db
    .prepare(
      `SELECT status, count(*) AS n FROM memory_extraction_states WHERE status IN ('processing', 'failed') GROUP BY status`,
    )
    .all() as { status: string; n: number }[];
  const of = (status: string) => rows.find((r) => r.status === status)?.n ?? 0;
  return { processing: of('processing'), failed: of('failed') };
}
