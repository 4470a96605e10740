import { writeTx, type Db } from './db';

/** Rows changed by this connection since it opened: tells whether an FTS5 command did any work. */
export const totalChanges = (db: Db): number => (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;

/** The recall and dialogue FTS5 indexes that index maintenance keeps merged (see memory/recall/index-maintenance.ts). */
export const RECALL_INDEXES = ['memory_facts_fts', 'session_messages_fts'] as const;
const PAGES_PER_STEP = 64;

/** One bounded merge step; true when it did work (total_changes moved by 2 or more). */
export function mergeStep(db: Db, table: (typeof RECALL_INDEXES)[number], pages = PAGES_PER_STEP): boolean {
  return writeTx(db, () => {
    const before = totalChanges(db);
    db.prepare(`INSERT INTO ${table}(${table}, rank) VALUES('merge', ?)`).run(-pages);
    const after = totalChanges(db);
    return after - before >= 2;
  });
}

/** The index's size in pages (rows of its %_data table: one per leaf or structure page). */
export const indexPages = (db: Db, table: (typeof RECALL_INDEXES)[number]): number =>
  (db.prepare(`SELECT count(*) AS n FROM ${table}_data`).get() as { n: number }).n;

/** The index's size when it was last merged whole (by any process); undefined when never recorded. */
export const mergedPages = (db: Db, table: (typeof RECALL_INDEXES)[number]): number | undefined =>
  (db.prepare('SELECT pages FROM recall_index_merges WHERE index_name = ?').get(table) as { pages: number } | undefined)
    ?.pages;

/** Records that the index was just merged whole, at its current size (no write when it is unchanged). */
export function recordMerged(db: Db, table: (typeof RECALL_INDEXES)[number]): void {
  if (mergedPages(db, table) === indexPages(db, table)) return;
  writeTx(db, () =>
    db
      .prepare(
        'INSERT INTO recall_index_merges (index_name, pages) VALUES (?, ?) ON CONFLICT (index_name) DO UPDATE SET pages = excluded.pages',
      )
      .run(table, indexPages(db, table)),
  );
}

export const PURGE_PER_STEP = 500;

/**
 * Deletes up to `batch` queued rowids of forgotten facts from the fact index (migration 23 queues
 * them so forget does not pay for FTS5 deletes); true when it did work.
 */
export function purgeStep(db: Db, batch = PURGE_PER_STEP): boolean {
  return writeTx(db, () => {
    const rows = db.prepare('SELECT rowid FROM memory_fact_index_purge LIMIT ?').all(batch) as { rowid: number }[];
    const fromIndex = db.prepare('DELETE FROM memory_facts_fts WHERE rowid = ?');
    const fromQueue = db.prepare('DELETE FROM memory_fact_index_purge WHERE rowid = ?');
    for (const { rowid } of rows) {
      fromIndex.run(rowid);
      fromQueue.run(rowid);
    }
    return rows.length > 0;
  });
}

export const pendingPurges = (db: Db): number =>
  (db.prepare('SELECT count(*) AS n FROM memory_fact_index_purge').get() as { n: number }).n;
