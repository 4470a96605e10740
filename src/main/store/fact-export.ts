import type { Scope } from '../../shared/domain';
import { SCOPES } from '../../shared/domain';
import type { Db } from './db';
import type { FactRow } from './facts';

export interface ScopeWithFacts {
  scope_id: number;
  scope: Scope;
  scope_key: string;
  n: number;
}

export type ExportFactRow = Pick<
  FactRow,
  'seq' | 'id' | 'scope' | 'scope_key' | 'kind' | 'text' | 'confidence' | 'reinforcement' | 'updated_at'
>;

export interface CitedEvidenceRow {
  session_id: string;
  title: string | null;
  seq: number | null;
}

/**
 * The reads a Markdown export makes, prepared once: every scope holding facts (user first, then
 * by scope and key), a scope's facts (most reinforced first) and a fact's first citations.
 */
export function factExportQueries(db: Db) {
  const scopes = db.prepare(
    `SELECT s.id AS scope_id, s.scope, s.scope_key, count(*) AS n
     FROM memory_facts f JOIN memory_scopes s ON s.id = f.scope_id GROUP BY s.id
     ORDER BY CASE s.scope ${SCOPES.map((s, i) => `WHEN '${s}' THEN ${i}`).join(' ')} END, s.scope_key`,
  );
  const facts = db.prepare(
    `SELECT seq, id, scope, scope_key, kind, text, confidence, reinforcement, updated_at FROM memory_facts
     WHERE scope_id = ? ORDER BY reinforcement DESC, updated_at DESC, id`,
  );
  const evidence = db.prepare(
    `SELECT e.session_id, s.title, m.seq FROM memory_fact_evidence e JOIN sessions s ON s.id = e.session_id
     LEFT JOIN session_messages m ON m.id = e.message_id WHERE e.fact_seq = ? ORDER BY e.created_at, e.session_id LIMIT ?`,
  );
  return {
    scopesWithFacts: () => scopes.all() as ScopeWithFacts[],
    factsInScope: (scopeId: number) => facts.all(scopeId) as ExportFactRow[],
    citations: (factSeq: number, limit: number) => evidence.all(factSeq, limit) as CitedEvidenceRow[],
  };
}
