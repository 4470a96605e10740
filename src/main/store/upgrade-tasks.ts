import type { Db } from './db';

/**
 * Background upgrades a migration queued (upgrade_tasks: a name and how far it got), and the rows
 * the recall-block upgrade rewrites: recall blocks the model saw, stored as hidden messages.
 */

/** How far a queued task got (the last rowid it finished), or undefined when it is not queued. */
export const taskProgress = (db: Db, name: string): number | undefined =>
  (db.prepare('SELECT progress FROM upgrade_tasks WHERE name = ?').get(name) as { progress: number } | undefined)
    ?.progress;

export const setTaskProgress = (db: Db, name: string, progress: number): void => {
  db.prepare('UPDATE upgrade_tasks SET progress = ? WHERE name = ?').run(progress, name);
};

export const dropTask = (db: Db, name: string): void => {
  db.prepare('DELETE FROM upgrade_tasks WHERE name = ?').run(name);
};

export interface RecallBlockRow {
  rowid: number;
  id: string;
  session_id: string;
  content: string;
}

/** The next stored recall blocks after `afterRowid`, oldest first. */
export const recallBlocksAfter = (db: Db, afterRowid: number, limit: number): RecallBlockRow[] =>
  db
    .prepare(
      `SELECT rowid, id, session_id, content FROM session_messages
       WHERE model_context = 'memory_recall' AND rowid > ? ORDER BY rowid LIMIT ?`,
    )
    .all(afterRowid, limit) as RecallBlockRow[];

export const deleteRecallBlock = (db: Db, id: string): void => {
  db.prepare('DELETE FROM session_messages WHERE id = ?').run(id);
};

export const rewriteRecallBlock = (db: Db, id: string, content: string): void => {
  db.prepare('UPDATE session_messages SET content = ? WHERE id = ?').run(content, id);
};

/** The internal sequence number of a fact by its public id (its evidence key). */
export const factSeqOf = (db: Db, id: string): number | undefined =>
  (db.prepare('SELECT seq FROM memory_facts WHERE id = ?').get(id) as { seq: number } | undefined)?.seq;
