import type { Db } from '../../store/db';
import type { ScopeRef } from '../../../shared/schemas';
import { prepared } from '../../store/prepared';

/**
 * Pinned facts are always recall candidates for their scope: they join the index's candidates
 * before ranking, so no candidate cap (a common word's newest rows) can crowd them out. They are
 * ranked like any other candidate. One probe of the pinned-facts partial index per visible scope.
 */
export const PINNED_PER_SCOPE = 50;

/** SQL (on memory_facts aliased `f`) that keeps paused facts out of recall and memory_search. */
export const RECALLABLE = "f.recall != 'paused'";

export function pinnedCandidates(db: Db, visible: readonly ScopeRef[]): number[] {
  const statement = prepared(
    db,
    `SELECT f.seq FROM memory_facts f
     WHERE f.scope_id = (SELECT id FROM memory_scopes WHERE scope = ? AND scope_key = ?) AND f.recall = 'pinned'
     ORDER BY f.seq DESC LIMIT ${PINNED_PER_SCOPE}`,
  );
  return visible.flatMap((v) => (statement.all(v.scope, v.key) as { seq: number }[]).map((r) => r.seq));
}

/** The index's candidates plus the pinned facts of the visible scopes, each once. */
export function withPinned(db: Db, rowids: readonly number[], visible: readonly ScopeRef[]): number[] {
  const pinned = pinnedCandidates(db, visible);
  if (pinned.length === 0) return [...rowids];
  return [...new Set([...rowids, ...pinned])];
}
