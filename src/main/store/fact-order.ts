import type { Db } from './db';

/**
 * How a page of some scopes' facts is read in a sort order, now that only store-wide sort
 * indexes exist (migration 104 dropped the per-scope ones to save 4 MB per 100k facts):
 * - walk: the store-wide index in order, skipping other scopes' facts; reads about
 *   limit x total / inScope rows, cheap when the scopes hold a good share of the store;
 * - sort: every fact of the scopes (through memory_facts_key, which starts with scope_id),
 *   sorted; reads inScope rows, cheap for a small scope.
 * Walking wins when inScope^2 > limit x total, so a page never reads more than about
 * sqrt(limit x total) rows: ~4,500 at 100k facts and 200 a page.
 */
export const walkSortIndex = (inScope: number, total: number, limit: number): boolean =>
  inScope * inScope > limit * total;

/**
 * The scope_id column as a condition should name it: with a unary plus SQLite cannot look
 * facts up by scope (memory_facts_key), so it walks the sort index the ORDER BY names.
 */
export const scopeColumn = (walk: boolean, alias = 'f'): string => (walk ? `+${alias}.scope_id` : `${alias}.scope_id`);

/** Facts in the store: what walking a sort index skips through. */
export const totalFacts = (db: Db): number =>
  (db.prepare('SELECT COALESCE(sum(facts), 0) AS n FROM memory_scopes').get() as { n: number }).n;
