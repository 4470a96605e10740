import type { Db } from './db';
import { prepared } from './prepared';

/**
 * The small integer evidence rows name a session by (see migration 103), created on first use.
 * Runs inside the caller's write transaction. Not cached in memory: a ref whose session was
 * deleted can be handed out again, so only the table knows which session it names now.
 */
export function evidenceSessionRef(db: Db, sessionId: string): number {
  const row = prepared(db, 'SELECT ref FROM memory_evidence_sessions WHERE session_id = ?').get(sessionId) as
    { ref: number } | undefined;
  if (row) return row.ref;
  return Number(
    prepared(db, 'INSERT INTO memory_evidence_sessions (session_id) VALUES (?)').run(sessionId).lastInsertRowid,
  );
}
