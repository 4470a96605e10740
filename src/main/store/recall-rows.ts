import type { Db } from './db';

/** Links a persisted recall block to the facts it holds (migration 054). In the caller's transaction. */
export function linkRecallRow(db: Db, messageId: string, factIds: readonly string[]): void {
  const link = db.prepare(
    'INSERT OR IGNORE INTO recall_row_facts (fact_seq, message_id) SELECT seq, ? FROM memory_facts WHERE id = ?',
  );
  for (const id of factIds) link.run(messageId, id);
}

/** The persisted recall blocks holding any of these facts. */
export function recallRowsOf(db: Db, factSeqs: readonly number[]): { id: string; content: string }[] {
  if (factSeqs.length === 0) return [];
  return db
    .prepare(
      `SELECT DISTINCT m.id, m.content FROM recall_row_facts r JOIN session_messages m ON m.id = r.message_id
       WHERE r.fact_seq IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(factSeqs)) as { id: string; content: string }[];
}

export function rewriteRecallRow(db: Db, id: string, content: string | null): void {
  if (content === null) db.prepare('DELETE FROM session_messages WHERE id = ?').run(id);
  else db.prepare('UPDATE session_messages SET content = ? WHERE id = ?').run(content, id);
}
