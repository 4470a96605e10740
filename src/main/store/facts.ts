import type { Db } from './db';
import { newId } from '../../shared/ids';
import { CONFIDENCE_RANK, type Confidence, type FactKind, type FactOrigin, type Scope } from '../../shared/domain';
import type { EvidenceRecord, FactRecord } from '../../shared/schemas';
import type { CoercedScope } from '../memory/scope';
import { factKey, normalizeFactText } from '../memory/text';

export interface FactRow {
  id: string;
  scope: Scope;
  scope_key: string;
  kind: FactKind;
  text: string;
  normalized_key: string;
  confidence: Confidence;
  reinforcement: number;
  status: 'active';
  origin: FactOrigin;
  requested_scope: Scope | null;
  coercion_reason: FactRecord['coercionReason'];
  first_seen_at: number;
  last_seen_at: number;
  updated_at: number;
}

export const toFact = (r: FactRow): FactRecord => ({
  id: r.id,
  scope: r.scope,
  scopeKey: r.scope_key,
  kind: r.kind,
  text: r.text,
  confidence: r.confidence,
  reinforcement: r.reinforcement,
  origin: r.origin,
  requestedScope: r.requested_scope,
  coercionReason: r.coercion_reason,
  firstSeenAt: r.first_seen_at,
  lastSeenAt: r.last_seen_at,
  updatedAt: r.updated_at,
});

export interface Observation {
  /** Already validated and bounded by the caller. */
  text: string;
  kind: FactKind;
  confidence: Confidence;
  origin: FactOrigin;
  target: CoercedScope;
  sessionId: string;
  messageId: string | null;
}

export interface RecordResult {
  fact: FactRecord;
  created: boolean;
  /** A new supporting session: reinforcement went up. */
  reinforced: boolean;
  /** Nothing changed: the same evidence was seen before. */
  unchanged: boolean;
}

type Statements = ReturnType<typeof prepare>;
const cache = new WeakMap<Db, Statements>();

function prepare(db: Db) {
  return {
    find: db.prepare('SELECT * FROM memory_facts WHERE scope = ? AND scope_key = ? AND normalized_key = ?'),
    // A new fact always arrives with its first supporting session, so it starts at reinforcement 1.
    insert: db.prepare(
      `INSERT INTO memory_facts (id, scope, scope_key, kind, text, normalized_key, confidence, reinforcement, origin,
         requested_scope, coercion_reason, first_seen_at, last_seen_at, updated_at)
       VALUES (@id, @scope, @scope_key, @kind, @text, @normalized_key, @confidence, 1, @origin,
         @requested_scope, @coercion_reason, @now, @now, @now)
       RETURNING *`,
    ),
    evidence: db.prepare('SELECT message_id FROM memory_fact_evidence WHERE fact_id = ? AND session_id = ?'),
    insertEvidence: db.prepare(
      `INSERT INTO memory_fact_evidence (fact_id, session_id, message_id, created_at, last_seen_at)
       VALUES (?, ?, ?, ?, ?)`,
    ),
    refreshEvidence: db.prepare(
      `UPDATE memory_fact_evidence SET last_seen_at = ?, message_id = COALESCE(message_id, ?)
       WHERE fact_id = ? AND session_id = ?`,
    ),
    observe: db.prepare(
      `UPDATE memory_facts SET reinforcement = reinforcement + @reinforce, confidence = @confidence,
         last_seen_at = @now, updated_at = CASE WHEN @reinforce = 1 OR confidence != @confidence THEN @now ELSE updated_at END
       WHERE id = @id RETURNING *`,
    ),
    byId: db.prepare('SELECT * FROM memory_facts WHERE id = ?'),
  };
}

const statements = (db: Db): Statements => {
  let s = cache.get(db);
  if (!s) cache.set(db, (s = prepare(db)));
  return s;
};

/**
 * Get-or-create a fact in its scope and attach this session's evidence. Runs inside the
 * caller's write transaction. Reinforcement counts distinct supporting sessions: a new
 * session's evidence raises it by one, the same session again never does, and the exact same
 * evidence twice changes nothing at all. Confidence only ever rises.
 */
export function recordFact(db: Db, o: Observation, now: number): RecordResult {
  const st = statements(db);
  const text = normalizeFactText(o.text);
  const key = factKey(text);
  const row = st.find.get(o.target.scope, o.target.key, key) as FactRow | undefined;
  if (!row) {
    const created = st.insert.get({
      id: newId(),
      scope: o.target.scope,
      scope_key: o.target.key,
      kind: o.kind,
      text,
      normalized_key: key,
      confidence: o.confidence,
      origin: o.origin,
      requested_scope: o.target.coercion?.requested ?? null,
      coercion_reason: o.target.coercion?.reason ?? null,
      now,
    }) as FactRow;
    st.insertEvidence.run(created.id, o.sessionId, o.messageId, now, now);
    return { fact: toFact(created), created: true, reinforced: false, unchanged: false };
  }

  const confidence = CONFIDENCE_RANK[o.confidence] > CONFIDENCE_RANK[row.confidence] ? o.confidence : row.confidence;
  const existing = st.evidence.get(row.id, o.sessionId) as { message_id: string | null } | undefined;
  if (!existing) {
    st.insertEvidence.run(row.id, o.sessionId, o.messageId, now, now);
    const updated = st.observe.get({ id: row.id, reinforce: 1, confidence, now }) as FactRow;
    return { fact: toFact(updated), created: false, reinforced: true, unchanged: false };
  }
  const sameEvidence = existing.message_id === o.messageId || o.messageId === null;
  if (sameEvidence && confidence === row.confidence) {
    return { fact: toFact(row), created: false, reinforced: false, unchanged: true };
  }
  if (!sameEvidence) st.refreshEvidence.run(now, o.messageId, row.id, o.sessionId);
  const updated = st.observe.get({ id: row.id, reinforce: 0, confidence, now }) as FactRow;
  return { fact: toFact(updated), created: false, reinforced: false, unchanged: false };
}

export function getFact(db: Db, id: string): FactRecord | undefined {
  const row = statements(db).byId.get(id) as FactRow | undefined;
  return row && toFact(row);
}

export function listEvidence(db: Db, factId: string): EvidenceRecord[] {
  return (
    db
      .prepare(
        `SELECT e.fact_id, e.session_id, s.title AS session_title, e.message_id, m.seq AS message_seq,
                substr(m.content, 1, 280) AS message_excerpt, e.created_at, e.last_seen_at
         FROM memory_fact_evidence e
         JOIN sessions s ON s.id = e.session_id
         LEFT JOIN session_messages m ON m.id = e.message_id
         WHERE e.fact_id = ? ORDER BY e.created_at, e.id`,
      )
      .all(factId) as {
      fact_id: string;
      session_id: string;
      session_title: string | null;
      message_id: string | null;
      message_seq: number | null;
      message_excerpt: string | null;
      created_at: number;
      last_seen_at: number;
    }[]
  ).map((r) => ({
    factId: r.fact_id,
    sessionId: r.session_id,
    sessionTitle: r.session_title,
    messageId: r.message_id,
    messageSeq: r.message_seq,
    messageExcerpt: r.message_excerpt,
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
  }));
}
