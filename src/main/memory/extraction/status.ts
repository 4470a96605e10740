import type { Db } from '../../store/db';
import { extractionStatusRows } from '../../store/extraction-runs';
import { isDue, leaseIsLive, type Cadence } from './cursor';
import type { CursorState } from '../../store/extraction-states';
import { countPendingInput } from './transcript';

export interface SessionExtractionStatus extends Omit<CursorState, 'status'> {
  status: CursorState['status'] | 'never-run';
  title: string | null;
  completedResponses: number;
  /** The cadence says a run is owed (a failed one waits for nextAttemptAt). */
  due: boolean;
  leaseLive: boolean;
  /** Eligible messages after the cursor. */
  pendingMessages: number;
}

/**
 * Every top-level session that has a cursor or at least one completed response, most recently
 * active first: the cursor, status, lease, attempts, last error and next attempt.
 */
export function extractionStatus(
  db: Db,
  options: { sessionId?: string; limit: number; now: number; cadence: Cadence },
  getState: (id: string) => CursorState | undefined,
): SessionExtractionStatus[] {
  const rows = extractionStatusRows(db, options);
  return rows.map((r) => {
    const state = getState(r.id);
    const base: Omit<CursorState, 'status'> & { status: SessionExtractionStatus['status'] } = state ?? {
      sessionId: r.id,
      cursorSeq: 0,
      lastResponseCount: 0,
      pendingResponseCount: null,
      pendingCursorSeq: null,
      status: 'never-run',
      leaseOwner: null,
      leaseExpiresAt: null,
      attempts: 0,
      consecutiveFailures: 0,
      lastError: null,
      nextAttemptAt: null,
      factsStored: 0,
      candidatesRejected: 0,
      lastSuccessAt: null,
      lastExtractor: null,
      updatedAt: 0,
    };
    return {
      ...base,
      title: r.title,
      completedResponses: r.responses,
      due: isDue(r.responses, base.lastResponseCount, options.cadence),
      leaseLive: state ? leaseIsLive(state, options.now) : false,
      pendingMessages: countPendingInput(db, r.id, base.cursorSeq),
    };
  });
}
