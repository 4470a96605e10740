import type { Db } from './db';

/** An agent's own checkpoint for a session: one opaque JSON document, replaced on each save. */
export function saveCheckpoint(db: Db, sessionId: string, state: unknown, now: number): void {
  db.prepare(
    `INSERT INTO agent_checkpoints (session_id, state, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
  ).run(sessionId, JSON.stringify(state), now);
}

export function loadCheckpoint(db: Db, sessionId: string): { state: unknown; updatedAt: number } | null {
  const row = db.prepare('SELECT state, updated_at FROM agent_checkpoints WHERE session_id = ?').get(sessionId) as
    { state: string; updated_at: number } | undefined;
  return row ? { state: JSON.parse(row.state), updatedAt: row.updated_at } : null;
}
