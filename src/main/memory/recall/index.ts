import type { Db } from '../../store/db';
import { resolveScopes } from '../scope';
import { buildRecallBlock, RECALL_MAX_FACTS } from './block';
import { searchFacts, type RankedFact } from './search-facts';

export interface RecallResult {
  facts: RankedFact[];
  block: string | null;
  abstained: boolean;
  reason: string | null;
}

/**
 * Automatic recall for one user request: only scoped semantic facts in the session's
 * compatible scopes, at most three, inside the untrusted-data boundary. Runs on a read-lane
 * connection (in a worker thread); never touches the wiki.
 */
export function recall(db: Db, sessionId: string, text: string): RecallResult {
  const scopes = resolveScopes(db, sessionId);
  const found = searchFacts(db, scopes, text, { mode: 'automatic', limit: RECALL_MAX_FACTS });
  const { block, included } = buildRecallBlock(found.facts);
  return { facts: included, block, abstained: found.abstained, reason: found.reason };
}
