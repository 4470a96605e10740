import type { Db } from '../../store/db';
import { pinnedFactSeqs } from '../../store/recall-candidates';

/**
 * Pinned facts are always recall candidates for their scope: they join the index's candidates
 * before ranking, so no candidate cap (a common word's newest rows) can crowd them out. They are
 * ranked like any other candidate. One probe of the pinned-facts partial index per visible scope.
 */
export const PINNED_PER_SCOPE = 50;

/** The index's candidates plus the pinned facts of the visible scopes (by scope id), each once. */
export function withPinned(db: Db, rowids: readonly number[], scopeIds: readonly number[]): number[] {
  const pinned = pinnedFactSeqs(db, scopeIds, PINNED_PER_SCOPE);
  if (pinned.length === 0) return [...rowids];
  return [...new Set([...rowids, ...pinned])];
}
