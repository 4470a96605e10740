import type { Confidence, FactKind, Scope } from '../../shared/domain';
import type { Db } from './db';

export interface TeamFactRow {
  id: string;
  text: string;
  kind: FactKind;
  scope: Scope;
  scope_key: string;
  confidence: Confidence;
  reinforcement: number;
  message_seq: number | null;
  /** The team member or side chat whose message is the evidence; null for the lead's own. */
  via: 'team-member' | 'side-chat' | null;
}

/**
 * The facts of a lead's whole team: its own evidence, and its team members' and side chats'
 * (which count as the lead's team context), each fact once, the lead's own evidence first.
 * Evidence rows are reached through each team session's ref (migration 103): joined on the
 * memory_fact_evidence view's session id instead, SQLite read every evidence row of the store for
 * each Dream source session (at 20k evidence rows, a quarter of the dream bench's time).
 */
export function teamFacts(db: Db, sessionId: string): TeamFactRow[] {
  const rows = db
    .prepare(
      `WITH RECURSIVE team(id, depth) AS (
         SELECT ?, 0 UNION SELECT s.id, team.depth + 1 FROM sessions s JOIN team ON s.parent_session_id = team.id)
       SELECT f.id, f.text, f.kind, f.scope, f.scope_key, f.confidence, f.reinforcement, m.seq AS message_seq,
              CASE WHEN team.depth = 0 THEN NULL ELSE s.kind END AS via
       FROM team JOIN memory_evidence_sessions es ON es.session_id = team.id
       JOIN memory_fact_evidence_rows e ON e.session_ref = es.ref
       JOIN memory_facts f ON f.seq = e.fact_seq
       JOIN sessions s ON s.id = team.id
       LEFT JOIN session_messages m ON m.id = e.message_id
       ORDER BY f.first_seen_at, f.id, team.depth, e.created_at`,
    )
    .all(sessionId) as TeamFactRow[];
  return rows.filter((r, i) => i === 0 || rows[i - 1]!.id !== r.id);
}
