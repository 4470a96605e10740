import type { Db } from '../../store/db';
import {
  ERROR_TEXT_MAX,
  expiredLeases,
  getCursor,
  markLeaseExpired,
  writeAdvance,
  writeClaim,
  writeFailure,
  type CursorState,
} from '../../store/extraction-states';
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
  writeClaim(db, {
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
  writeAdvance(db, {
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
  writeFailure(db, claim.sessionId, {
    error: error.slice(0, ERROR_TEXT_MAX),
    failures,
    nextAttemptAt: now + (backoff ? backoffDelay(failures, backoff) : 0),
    now,
  });
  return true;
}

/**
 * Leases left behind by a process that died: processing rows whose lease has expired become
 * failed and due now, so status shows what happened and the next claim runs them.
 */
export function reclaimExpiredLeases(db: Db, now: number): string[] {
  const rows = expiredLeases(db, now);
  for (const r of rows) {
    markLeaseExpired(
      db,
      r.session_id,
      now,
      `lease expired: the run by ${r.lease_owner ?? 'an unknown process'} did not finish`,
    );
  }
  return rows.map((r) => r.session_id);
}
