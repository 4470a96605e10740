import type { Db } from './db';

/**
 * The forget follow-up queue (migration 052). A forget queues its wiki clean-up and its disk
 * scrub inside its own transaction; the engine works them off right after the commit, or on the
 * next start if the process stopped first.
 */
export function queueForgetFollowUps(db: Db, what: { sessionIds: string[]; factIds: string[] }, now: number): void {
  // One statement per list: a session's forget queues one row per deleted fact, thousands of them.
  const wiki = (column: 'session_id' | 'fact_id', ids: readonly string[]) => {
    if (ids.length === 0) return;
    db.prepare(
      `INSERT INTO forget_follow_ups (step, ${column}, created_at)
       SELECT 'wiki', value, ? FROM json_each(?) ORDER BY key`,
    ).run(now, JSON.stringify(ids));
  };
  wiki('session_id', what.sessionIds);
  wiki('fact_id', what.factIds);
  db.prepare("INSERT INTO forget_follow_ups (step, created_at) VALUES ('disk', ?)").run(now);
}

export interface WikiFollowUps {
  /** Row ids to delete once the wiki is clean. */
  ids: number[];
  sessionIds: string[];
  factIds: string[];
}

export function pendingWikiFollowUps(db: Db): WikiFollowUps {
  const rows = db
    .prepare("SELECT id, session_id, fact_id FROM forget_follow_ups WHERE step = 'wiki' ORDER BY id")
    .all() as { id: number; session_id: string | null; fact_id: string | null }[];
  return {
    ids: rows.map((r) => r.id),
    sessionIds: [...new Set(rows.flatMap((r) => (r.session_id ? [r.session_id] : [])))],
    factIds: [...new Set(rows.flatMap((r) => (r.fact_id ? [r.fact_id] : [])))],
  };
}

export function deleteFollowUps(db: Db, ids: readonly number[]): void {
  const del = db.prepare('DELETE FROM forget_follow_ups WHERE id = ?');
  for (const id of ids) del.run(id);
}

export const countFollowUps = (db: Db, step: 'wiki' | 'disk'): number =>
  (db.prepare('SELECT count(*) AS n FROM forget_follow_ups WHERE step = ?').get(step) as { n: number }).n;

export const diskFollowUpIds = (db: Db): number[] =>
  (db.prepare("SELECT id FROM forget_follow_ups WHERE step = 'disk'").all() as { id: number }[]).map((r) => r.id);
