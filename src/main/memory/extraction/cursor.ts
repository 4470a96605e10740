import type { Db } from '../../store/db';
import { countCompletedResponses } from '../../store/messages';
import { loadWindow, type WindowBounds } from './transcript';
import type { TranscriptWindow } from './types';

/**
 * The durable extraction cursor of one top-level session (memory_extraction_states) and its
 * state machine:
 *
 *   idle/failed --claim--> processing --complete--> idle     (cursor advanced, facts stored)
 *                          processing --fail------> failed   (cursor unchanged, backoff)
 *                          processing --lease expires, reclaim--> failed (due now)
 *
 * A claim is refused while another claimant's lease is live. complete and fail only act for the
 * claimant that still holds the lease, so an attempt that outlived its lease cannot overwrite
 * the newer one.
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

export interface Cadence {
  firstAfter: number;
  every: number;
}

/**
 * Due after the firstAfter-th completed response, then every `every` more past the last
 * successful run: with 3 and 10, responses 3, 13, 23 ... A failed run does not move the count,
 * so the window stays due until it succeeds.
 */
export function isDue(responseCount: number, lastResponseCount: number, cadence: Cadence): boolean {
  if (lastResponseCount <= 0) return responseCount >= cadence.firstAfter;
  return responseCount - lastResponseCount >= cadence.every;
}

export const leaseIsLive = (s: Pick<CursorState, 'status' | 'leaseExpiresAt'>, now: number): boolean =>
  s.status === 'processing' && s.leaseExpiresAt !== null && s.leaseExpiresAt > now;

export interface Claim {
  sessionId: string;
  owner: string;
  responseCount: number;
  window: TranscriptWindow;
  attempt: number;
}

export type ClaimRefusal =
  | { refused: 'lease-held'; leaseOwner: string | null; leaseExpiresAt: number | null }
  | { refused: 'not-due'; responseCount: number; lastResponseCount: number }
  | { refused: 'backoff'; nextAttemptAt: number };

export interface ClaimRequest {
  sessionId: string;
  owner: string;
  now: number;
  leaseMs: number;
  bounds: WindowBounds;
  /** Automatic runs honour the cadence and the retry backoff; a manual run skips both. */
  cadence: Cadence | null;
}

/** Takes the lease and reads the window after the cursor. Run inside a write transaction. */
export function claimCursor(db: Db, r: ClaimRequest): Claim | ClaimRefusal {
  const state = getCursor(db, r.sessionId);
  if (state && leaseIsLive(state, r.now)) {
    return { refused: 'lease-held', leaseOwner: state.leaseOwner, leaseExpiresAt: state.leaseExpiresAt };
  }
  const responseCount = countCompletedResponses(db, r.sessionId);
  if (r.cadence) {
    const last = state?.lastResponseCount ?? 0;
    if (!isDue(responseCount, last, r.cadence)) return { refused: 'not-due', responseCount, lastResponseCount: last };
    if (state?.status === 'failed' && state.nextAttemptAt !== null && state.nextAttemptAt > r.now) {
      return { refused: 'backoff', nextAttemptAt: state.nextAttemptAt };
    }
  }
  const window = loadWindow(db, r.sessionId, state?.cursorSeq ?? 0, r.bounds);
  db.prepare(
    `INSERT INTO memory_extraction_states (session_id, status, lease_owner, lease_expires_at, pending_response_count,
       pending_cursor_seq, attempts, updated_at)
     VALUES (@sessionId, 'processing', @owner, @expires, @count, @pendingSeq, 1, @now)
     ON CONFLICT (session_id) DO UPDATE SET status = 'processing', lease_owner = @owner, lease_expires_at = @expires,
       pending_response_count = @count, pending_cursor_seq = @pendingSeq, attempts = attempts + 1, updated_at = @now`,
  ).run({
    sessionId: r.sessionId,
    owner: r.owner,
    expires: r.now + r.leaseMs,
    count: responseCount,
    pendingSeq: window.lastSeq,
    now: r.now,
  });
  return { sessionId: r.sessionId, owner: r.owner, responseCount, window, attempt: (state?.attempts ?? 0) + 1 };
}

/** This claim still holds the lease (nobody reclaimed it after it expired). */
export function holdsLease(db: Db, claim: Claim): boolean {
  const s = getCursor(db, claim.sessionId);
  return (
    !!s && s.status === 'processing' && s.leaseOwner === claim.owner && s.pendingCursorSeq === claim.window.lastSeq
  );
}

export interface Advance {
  factsStored: number;
  rejected: number;
  extractor: string;
  now: number;
  /** When more input follows, keep the lease for the next window instead of going idle. */
  next: { leaseMs: number; bounds: WindowBounds } | null;
}

/**
 * Moves the cursor past the claim's window (inside the transaction that stored its facts).
 * Returns the next window's claim when asked to continue and input remains.
 */
export function advanceCursor(db: Db, claim: Claim, a: Advance): Claim | null {
  const next =
    a.next && claim.window.truncated ? loadWindow(db, claim.sessionId, claim.window.lastSeq, a.next.bounds) : null;
  const continuing = next !== null && next.entries.length > 0;
  db.prepare(
    `UPDATE memory_extraction_states SET cursor_seq = @seq, last_response_count = MAX(last_response_count, @count),
       status = @status, lease_owner = @owner, lease_expires_at = @expires,
       pending_response_count = @pendingCount, pending_cursor_seq = @pendingSeq,
       consecutive_failures = 0, last_error = NULL, next_attempt_at = NULL,
       facts_stored = facts_stored + @stored, candidates_rejected = candidates_rejected + @rejected,
       last_success_at = @now, last_extractor = @extractor, updated_at = @now
     WHERE session_id = @sessionId`,
  ).run({
    sessionId: claim.sessionId,
    seq: claim.window.lastSeq,
    count: claim.responseCount,
    status: continuing ? 'processing' : 'idle',
    owner: continuing ? claim.owner : null,
    expires: continuing ? a.now + a.next!.leaseMs : null,
    pendingCount: continuing ? claim.responseCount : null,
    pendingSeq: continuing ? next.lastSeq : null,
    stored: a.factsStored,
    rejected: a.rejected,
    now: a.now,
    extractor: a.extractor,
  });
  return continuing ? { ...claim, window: next } : null;
}

export interface Backoff {
  baseMs: number;
  maxMs: number;
}

/** retryBaseMs * 2^(failures-1), capped; failures counts this one. */
export const backoffDelay = (failures: number, b: Backoff): number =>
  Math.min(b.maxMs, b.baseMs * 2 ** Math.min(30, Math.max(0, failures - 1)));

/**
 * Gives the lease back as failed with the cursor where it was. `backoff: null` makes it due at
 * once (a shutdown is not the window's fault). Does nothing when the lease was lost.
 */
export function failCursor(db: Db, claim: Claim, error: string, now: number, backoff: Backoff | null): boolean {
  if (!holdsLease(db, claim)) return false;
  const state = getCursor(db, claim.sessionId)!;
  const failures = backoff ? state.consecutiveFailures + 1 : state.consecutiveFailures;
  db.prepare(
    `UPDATE memory_extraction_states SET status = 'failed', lease_owner = NULL, lease_expires_at = NULL,
       pending_response_count = NULL, pending_cursor_seq = NULL, last_error = ?, consecutive_failures = ?,
       next_attempt_at = ?, updated_at = ?
     WHERE session_id = ?`,
  ).run(
    error.slice(0, ERROR_TEXT_MAX),
    failures,
    now + (backoff ? backoffDelay(failures, backoff) : 0),
    now,
    claim.sessionId,
  );
  return true;
}

/**
 * Leases left behind by a process that died: processing rows whose lease has expired become
 * failed and due now, so status shows what happened and the next claim runs them.
 */
export function reclaimExpiredLeases(db: Db, now: number): string[] {
  const rows = db
    .prepare(
      `SELECT session_id, lease_owner FROM memory_extraction_states
       WHERE status = 'processing' AND (lease_expires_at IS NULL OR lease_expires_at <= ?)`,
    )
    .all(now) as { session_id: string; lease_owner: string | null }[];
  const update = db.prepare(
    `UPDATE memory_extraction_states SET status = 'failed', lease_owner = NULL, lease_expires_at = NULL,
       pending_response_count = NULL, pending_cursor_seq = NULL, next_attempt_at = ?, updated_at = ?,
       last_error = ?
     WHERE session_id = ? AND status = 'processing'`,
  );
  for (const r of rows) {
    update.run(
      now,
      now,
      `lease expired: the run by ${r.lease_owner ?? 'an unknown process'} did not finish`,
      r.session_id,
    );
  }
  return rows.map((r) => r.session_id);
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
