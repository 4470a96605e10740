import type { Db } from './db';
import type { ScopeRef } from '../../shared/schemas';
import { jsonRows, prepared, preparedPluck } from './prepared';

/**
 * The reads behind a fact search's candidates, straight from memory_fact_rows and by scope id:
 * the caller already holds the ids of the scopes it may see, so no row needs the memory_facts
 * view's join to be placed, and kind and confidence stay the integer codes the row stores.
 */

/** The visible scopes that hold facts, in the order given, each once: id and fact count (BM25's N). */
export function storedScopes(db: Db, visible: readonly ScopeRef[]): { id: number; facts: number; ref: ScopeRef }[] {
  const stmt = prepared(db, 'SELECT id, facts FROM memory_scopes WHERE scope = ? AND scope_key = ?');
  const found = new Map<number, { id: number; facts: number; ref: ScopeRef }>();
  for (const v of visible) {
    const row = stmt.get(v.scope, v.key) as { id: number; facts: number } | undefined;
    if (row && !found.has(row.id)) found.set(row.id, { ...row, ref: v });
  }
  return [...found.values()];
}

/**
 * Pinned facts are always recall candidates for their scope (see memory/recall/pinned.ts): the
 * newest `perScope` of each scope, one probe of the pinned-facts partial index per scope.
 */
export function pinnedFactSeqs(db: Db, scopeIds: readonly number[], perScope: number): number[] {
  const statement = preparedPluck(
    db,
    `SELECT seq FROM memory_fact_rows WHERE scope_id = ? AND recall = 'pinned' ORDER BY seq DESC LIMIT ${perScope}`,
  );
  return scopeIds.flatMap((id) => statement.all(id) as number[]);
}

/** A candidate as stored: seq, id, scope id, kind code, text, confidence code, reinforcement. */
export type CandidateRow = [number, string, number, number, string, number, number];

/** The recallable facts (not paused) among these seqs, as arrays. */
export function candidateRows(db: Db, seqs: readonly number[]): CandidateRow[] {
  return jsonRows<CandidateRow>(
    db,
    'seq, id, scope_id, kind, text, confidence, reinforcement',
    `FROM memory_fact_rows WHERE seq IN (SELECT value FROM json_each(?)) AND recall != 'paused'`,
    JSON.stringify(seqs),
  );
}
