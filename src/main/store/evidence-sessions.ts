import type { Db } from './db';
import { prepared } from './prepared';

/**
 * The small integer evidence rows name a session by (see migration 103), created on first use.
 * Runs inside the caller's write transaction. Not cached in memory: a ref whose session was
 * deleted can be handed out again, so only the table knows which session it names now.
 */
export function evidenceSessionRef(db: Db, sessionId: string): number {
  return (
    existingEvidenceSessionRef(db, sessionId) ??
    Number(prepared(db, 'INSERT INTO memory_evidence_sessions (session_id) VALUES (?)').run(sessionId).lastInsertRowid)
  );
}

/** The session's evidence ref, if it has one (it has evidence, or had some). */
export const existingEvidenceSessionRef = (db: Db, sessionId: string): number | undefined =>
  (
    prepared(db, 'SELECT ref FROM memory_evidence_sessions WHERE session_id = ?').get(sessionId) as
      { ref: number } | undefined
  )?.ref;
