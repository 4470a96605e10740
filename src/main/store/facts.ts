import type { Db } from './db';
import { newId } from '../../shared/ids';
import {
  CONFIDENCE_RANK,
  type CoercedScope,
  type Confidence,
  type FactKind,
  type FactOrigin,
  type FactRecallMode,
  type Scope,
} from '../../shared/domain';
import type { EvidenceRecord, FactRecord } from '../../shared/schemas';
import { factKeyOfFolded, foldForKey, normalizeFactText } from '../text/fact-text';
import { factIndexTerms } from '../text/fact-index';
import { evidenceSessionRef } from './evidence-sessions';
import { confidenceCode, kindCode, originCode } from './fact-codes';

export interface FactRow {
  /** Internal, stable, never reused: the recall-index rowid and the evidence key. */
  seq: number;
  id: string;
  scope_id: number;
  scope: Scope;
  scope_key: string;
  kind: FactKind;
  text: string;
  normalized_key: number;
  confidence: Confidence;
  reinforcement: number;
  origin: FactOrigin;
  requested_scope: Scope | null;
  coercion_reason: FactRecord['coercionReason'];
  recall: FactRecallMode;
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
  recall: r.recall ?? 'normal',
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
    scopeId: db.prepare('SELECT id FROM memory_scopes WHERE scope = ? AND scope_key = ?'),
    insertScope: db.prepare('INSERT INTO memory_scopes (scope, scope_key) VALUES (?, ?)'),
    countFacts: db.prepare('UPDATE memory_scopes SET facts = facts + ? WHERE id = ?'),
    find: db.prepare('SELECT * FROM memory_facts WHERE scope_id = ? AND normalized_key = ?'),
    // Writes go to the table behind the memory_facts view, with stored codes (migration 104).
    // No RETURNING: the caller has every value already, and RETURNING costs a row re-read.
    // Positional parameters: binding a dozen by name costs more than the insert's B-tree work.
    insert: db.prepare(
      `INSERT INTO memory_fact_rows (id, scope_id, kind, text, normalized_key, confidence, reinforcement,
         origin, requested_scope, coercion_reason, first_seen_at, last_seen_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    index: db.prepare('INSERT INTO memory_facts_fts (rowid, terms) VALUES (?, ?)'),
    // Evidence rows name their session by ref (migration 103).
    evidence: db.prepare('SELECT message_id FROM memory_fact_evidence_rows WHERE fact_seq = ? AND session_ref = ?'),
    insertEvidence: db.prepare(
      `INSERT INTO memory_fact_evidence_rows (fact_seq, session_ref, message_id, created_at, last_seen_at)
       VALUES (?, ?, ?, ?, ?)`,
    ),
    refreshEvidence: db.prepare(
      `UPDATE memory_fact_evidence_rows SET last_seen_at = ?, message_id = COALESCE(message_id, ?)
       WHERE fact_seq = ? AND session_ref = ?`,
    ),
    observe: db.prepare(
      `UPDATE memory_fact_rows SET reinforcement = reinforcement + ?, confidence = ?, last_seen_at = ?,
         updated_at = CASE WHEN ? OR confidence != ? THEN ? ELSE updated_at END
       WHERE seq = ?`,
    ),
    bySeq: db.prepare('SELECT * FROM memory_facts WHERE seq = ?'),
    byId: db.prepare('SELECT * FROM memory_facts WHERE id = ?'),
  };
}

const statements = (db: Db): Statements => {
  let s = cache.get(db);
  if (!s) cache.set(db, (s = prepare(db)));
  return s;
};

/** The scope's row id, created on first use. Runs inside the caller's write transaction. */
function scopeIdOf(st: Statements, scope: Scope, key: string): number {
  const row = st.scopeId.get(scope, key) as { id: number } | undefined;
  return row?.id ?? Number(st.insertScope.run(scope, key).lastInsertRowid);
}

/** Adds one fact to its scope's count, as each write outside a batch does. */
const countOne =
  (st: Statements) =>
  (scopeId: number): void =>
    void st.countFacts.run(1, scopeId);

/**
 * Writes a new fact's row, its recall-index row and its scope's count (through `count`, which a
 * batch defers to its end), and returns its seq. The store does this itself rather than through
 * triggers (see migration 050). `text` must already be normalized and `key` be factKeyOfFolded of
 * its folded form.
 */
function writeFactRow(
  st: Statements,
  fact: Omit<FactRecord, 'recall'>,
  scopeId: number,
  key: number,
  count: (scopeId: number) => void = countOne(st),
): number {
  const seq = Number(
    st.insert.run(
      fact.id,
      scopeId,
      kindCode(fact.kind),
      fact.text,
      key,
      confidenceCode(fact.confidence),
      fact.reinforcement,
      originCode(fact.origin),
      fact.requestedScope,
      fact.coercionReason,
      fact.firstSeenAt,
      fact.lastSeenAt,
      fact.updatedAt,
    ).lastInsertRowid,
  );
  st.index.run(seq, factIndexTerms(scopeId, fact.text));
  count(scopeId);
  return seq;
}

/** The scope's row id, created on first use; inside the caller's write transaction. */
export const scopeIdFor = (db: Db, scope: Scope, key: string): number => scopeIdOf(statements(db), scope, key);

/** A new fact's row, index row and scope count (see writeFactRow); inside the caller's write transaction. */
export const insertFactRow = (db: Db, fact: Omit<FactRecord, 'recall'>, scopeId: number, key: number): number =>
  writeFactRow(statements(db), fact, scopeId, key);

/** The fact in a scope whose folded text equals `folded` (the dedup rule), if any. */
export function findFolded(db: Db, scopeId: number, folded: string): FactRow | undefined {
  const rows = statements(db).find.all(scopeId, factKeyOfFolded(folded)) as FactRow[];
  return rows.find((r) => foldForKey(r.text) === folded);
}

/** The stored row behind a public id. */
export const getFactRow = (db: Db, id: string): FactRow | undefined =>
  statements(db).byId.get(id) as FactRow | undefined;

/**
 * Inserts a complete fact row with no evidence, keeping the recall index and scope counts in
 * step: for seeding benchmark stores. Product writes go through recordFact. Runs inside the
 * caller's write transaction.
 */
export function insertFactForSeeding(db: Db, fact: Omit<FactRecord, 'recall'>): number {
  const st = statements(db);
  const text = normalizeFactText(fact.text);
  return writeFactRow(
    st,
    { ...fact, text },
    scopeIdOf(st, fact.scope, fact.scopeKey),
    factKeyOfFolded(foldForKey(text)),
  );
}

/** Where an observation's scope and session rows are looked up: directly, or once per batch. */
interface Refs {
  scopeId(scope: Scope, key: string): number;
  sessionRef(sessionId: string): number;
  /** Counts a new fact in its scope. */
  counted(scopeId: number): void;
}

const directRefs = (db: Db, st: Statements): Refs => ({
  scopeId: (scope, key) => scopeIdOf(st, scope, key),
  sessionRef: (sessionId) => evidenceSessionRef(db, sessionId),
  counted: countOne(st),
});

/**
 * Get-or-create a fact in its scope and attach this session's evidence. Runs inside the
 * caller's write transaction. Reinforcement counts distinct supporting sessions: a new
 * session's evidence raises it by one, the same session again never does, and the exact same
 * evidence twice changes nothing at all. Confidence only ever rises. A new fact is written to
 * the recall index and its scope's count here, not by triggers (see migration 050).
 */
export function recordFact(db: Db, o: Observation, now: number): RecordResult {
  const st = statements(db);
  return record(st, directRefs(db, st), o, now);
}

/**
 * recordFact for each observation in turn, in the caller's write transaction, looking each scope's
 * row and each session's evidence ref up once for the whole batch and adding each scope's new
 * facts to its count once: a batch's facts mostly share them, and 1,000 upserts a transaction
 * cost 8-9% less than one recordFact each (interleaved on one store). The ids cannot change under
 * the batch, as nothing in it deletes a scope or a session, and they are dropped with it (a
 * session's ref may be handed out again once the session is gone; see evidence-sessions.ts).
 */
export function recordFacts(db: Db, observations: readonly Observation[], now: number): RecordResult[] {
  const st = statements(db);
  const direct = directRefs(db, st);
  // By scope, then key: a joined string key would be built and hashed anew for every observation.
  const scopes = new Map<Scope, Map<string, number>>();
  const sessions = new Map<string, number>();
  const added = new Map<number, number>();
  const refs: Refs = {
    scopeId: (scope, key) => {
      let byKey = scopes.get(scope);
      if (!byKey) scopes.set(scope, (byKey = new Map()));
      let id = byKey.get(key);
      if (id === undefined) byKey.set(key, (id = direct.scopeId(scope, key)));
      return id;
    },
    sessionRef: (sessionId) => {
      let ref = sessions.get(sessionId);
      if (ref === undefined) sessions.set(sessionId, (ref = direct.sessionRef(sessionId)));
      return ref;
    },
    counted: (scopeId) => added.set(scopeId, (added.get(scopeId) ?? 0) + 1),
  };
  try {
    return observations.map((o) => record(st, refs, o, now));
  } finally {
    // Also when an observation throws: the counts then match the rows written before it, whether
    // the caller rolls its transaction back or not.
    for (const [scopeId, n] of added) st.countFacts.run(n, scopeId);
  }
}

function record(st: Statements, refs: Refs, o: Observation, now: number): RecordResult {
  const text = normalizeFactText(o.text);
  const folded = foldForKey(text);
  const scopeId = refs.scopeId(o.target.scope, o.target.key);
  const key = factKeyOfFolded(folded);
  const sessionRef = refs.sessionRef(o.sessionId);
  const row = (st.find.all(scopeId, key) as FactRow[]).find((r) => foldForKey(r.text) === folded);
  if (!row) {
    const fact: FactRecord = {
      id: newId(),
      scope: o.target.scope,
      scopeKey: o.target.key,
      kind: o.kind,
      text,
      confidence: o.confidence,
      // A new fact always arrives with its first supporting session.
      reinforcement: 1,
      origin: o.origin,
      requestedScope: o.target.coercion?.requested ?? null,
      coercionReason: o.target.coercion?.reason ?? null,
      recall: 'normal',
      firstSeenAt: now,
      lastSeenAt: now,
      updatedAt: now,
    };
    const seq = writeFactRow(st, fact, scopeId, key, refs.counted);
    st.insertEvidence.run(seq, sessionRef, o.messageId, now, now);
    return { fact, created: true, reinforced: false, unchanged: false };
  }

  const confidence = CONFIDENCE_RANK[o.confidence] > CONFIDENCE_RANK[row.confidence] ? o.confidence : row.confidence;
  const existing = st.evidence.get(row.seq, sessionRef) as { message_id: string | null } | undefined;
  if (!existing) {
    st.insertEvidence.run(row.seq, sessionRef, o.messageId, now, now);
    return { fact: observe(st, row.seq, 1, confidence, now), created: false, reinforced: true, unchanged: false };
  }
  const sameEvidence = existing.message_id === o.messageId || o.messageId === null;
  if (sameEvidence && confidence === row.confidence) {
    return { fact: toFact(row), created: false, reinforced: false, unchanged: true };
  }
  if (!sameEvidence) st.refreshEvidence.run(now, o.messageId, row.seq, sessionRef);
  return { fact: observe(st, row.seq, 0, confidence, now), created: false, reinforced: false, unchanged: false };
}

/** Raises reinforcement by `added` and confidence to `confidence`; the fact as it now reads. */
function observe(st: Statements, seq: number, added: 0 | 1, confidence: Confidence, now: number): FactRecord {
  const code = confidenceCode(confidence);
  st.observe.run(added, code, now, added, code, now, seq);
  return toFact(st.bySeq.get(seq) as FactRow);
}

export function getFact(db: Db, id: string): FactRecord | undefined {
  const row = statements(db).byId.get(id) as FactRow | undefined;
  return row && toFact(row);
}

export function listEvidence(db: Db, factId: string): EvidenceRecord[] {
  return (
    db
      .prepare(
        `SELECT f.id AS fact_id, e.session_id, s.title AS session_title, e.message_id, m.seq AS message_seq,
                substr(m.content, 1, 280) AS message_excerpt, e.created_at, e.last_seen_at
         FROM memory_facts f
         JOIN memory_fact_evidence e ON e.fact_seq = f.seq
         JOIN sessions s ON s.id = e.session_id
         LEFT JOIN session_messages m ON m.id = e.message_id
         WHERE f.id = ? ORDER BY e.created_at, e.session_id`,
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
