import type { Db } from './db';
import { CONFIDENCE_RANK, type Confidence, type FactKind, type FactRecallMode, type Scope } from '../../shared/domain';
import type { FactRecord } from '../../shared/schemas';
import { CommandError, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { evidenceSessionRef } from './evidence-sessions';
import { confidenceCode, kindCode } from './fact-codes';
import { factKeyOfFolded, foldForKey, normalizeFactText } from '../text/fact-text';
import { factIndexTerms } from '../text/fact-index';
import { findFolded, getFactRow, insertFactRow, scopeIdFor, toFact, type FactRow } from './facts';

/**
 * People's changes to facts: edits (text, kind, scope, confidence), pins and pauses, facts added
 * by hand. Every change writes a history row with the values it replaced, and an edit keeps the
 * recall index (the fact's FTS5 row and scope tag), the dedup key and the per-scope counts exact
 * in the same transaction. All functions run inside the caller's write transaction.
 */

export const HISTORY_CHANGES = ['create', 'edit', 'merge', 'pin', 'unpin', 'pause', 'resume'] as const;
export type HistoryChange = (typeof HISTORY_CHANGES)[number];

export interface HistoryEntry {
  at: number;
  actor: string;
  change: HistoryChange;
  previous: {
    text: string | null;
    kind: FactKind | null;
    scope: Scope | null;
    scopeKey: string | null;
    confidence: Confidence | null;
    recall: FactRecallMode | null;
  };
  note: string | null;
}

export interface FactEdit {
  text?: string;
  kind?: FactKind;
  target?: { scope: Scope; key: string };
  confidence?: Confidence;
}

export interface EditResult {
  fact: FactRecord;
  changed: boolean;
  /** Set when the edit made the fact equal to another one in its scope and the two were merged. */
  mergedInto: string | null;
}

function writeHistory(
  db: Db,
  row: FactRow,
  change: HistoryChange,
  actor: string,
  now: number,
  note: string | null = null,
  previousText: string | null = row.text,
): void {
  // A created fact had no earlier values.
  const before = change === 'create' ? null : row;
  db.prepare(
    `INSERT INTO memory_fact_history (fact_seq, changed_at, actor, change, previous_text, previous_kind,
       previous_scope, previous_scope_key, previous_confidence, previous_recall, note)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    row.seq,
    now,
    actor,
    change,
    before && previousText,
    before?.kind ?? null,
    before?.scope ?? null,
    before?.scope_key ?? null,
    before?.confidence ?? null,
    before?.recall ?? null,
    note,
  );
}

/** Moves one fact from its scope's count to another's; an emptied scope's row goes (as forget does). */
function moveScopeCount(db: Db, fromScopeId: number, toScopeId: number): void {
  db.prepare('UPDATE memory_scopes SET facts = facts + 1 WHERE id = ?').run(toScopeId);
  db.prepare('UPDATE memory_scopes SET facts = facts - 1 WHERE id = ?').run(fromScopeId);
  db.prepare('DELETE FROM memory_scopes WHERE id = ? AND facts <= 0').run(fromScopeId);
}

/** Replaces the fact's recall-index row: new words, new scope, same rowid. */
function reindex(db: Db, seq: number, scopeId: number, text: string): void {
  db.prepare('DELETE FROM memory_facts_fts WHERE rowid = ?').run(seq);
  db.prepare('INSERT INTO memory_facts_fts (rowid, terms) VALUES (?, ?)').run(seq, factIndexTerms(scopeId, text));
}

/**
 * Folds `from` into `into`: its evidence (one row per session; `into`'s own row wins), its
 * history, the higher confidence; reinforcement is recounted from the evidence. Then `from` is
 * deleted (its delete trigger queues the index purge and fixes the scope count).
 */
function mergeFacts(db: Db, from: FactRow, into: FactRow, edit: FactEdit, actor: string, now: number): FactRow {
  writeHistory(db, into, 'merge', actor, now, `merged with fact ${from.id}`, from.text);
  db.prepare('UPDATE memory_fact_history SET fact_seq = ? WHERE fact_seq = ?').run(into.seq, from.seq);
  db.prepare(
    `INSERT OR IGNORE INTO memory_fact_evidence_rows (fact_seq, session_ref, message_id, created_at, last_seen_at)
     SELECT ?, session_ref, message_id, created_at, last_seen_at FROM memory_fact_evidence_rows WHERE fact_seq = ?`,
  ).run(into.seq, from.seq);
  const wanted = edit.confidence ?? from.confidence;
  const confidence = CONFIDENCE_RANK[wanted] > CONFIDENCE_RANK[into.confidence] ? wanted : into.confidence;
  const recall = into.recall === 'normal' ? from.recall : into.recall;
  db.prepare('DELETE FROM memory_fact_rows WHERE seq = ?').run(from.seq);
  db.prepare(
    `UPDATE memory_fact_rows SET kind = ?, confidence = ?, recall = ?, updated_at = ?,
       reinforcement = (SELECT count(*) FROM memory_fact_evidence_rows WHERE fact_seq = ?)
     WHERE seq = ?`,
  ).run(kindCode(edit.kind ?? into.kind), confidenceCode(confidence), recall, now, into.seq, into.seq);
  return factRowAt(db, into.seq);
}

/** The fact at a seq as the memory_facts view reads it (writes go to memory_fact_rows, migration 104). */
const factRowAt = (db: Db, seq: number): FactRow =>
  db.prepare('SELECT * FROM memory_facts WHERE seq = ?').get(seq) as FactRow;

/** The fact as the edit would leave it. */
function editedValues(row: FactRow, edit: FactEdit) {
  const text = edit.text === undefined ? row.text : normalizeFactText(edit.text);
  const scope = edit.target?.scope ?? row.scope;
  const key = edit.target?.key ?? row.scope_key;
  return {
    text,
    scope,
    key,
    kind: edit.kind ?? row.kind,
    confidence: edit.confidence ?? row.confidence,
    moved: scope !== row.scope || key !== row.scope_key,
    textChanged: text !== row.text,
  };
}

type Edited = ReturnType<typeof editedValues>;

const conflictWith = (twin: FactRow, next: Edited) =>
  new CommandError(
    'conflict',
    `text: the same fact already exists in ${next.scope}${next.key ? ` ${next.key}` : ''} (${twin.id}: "${twin.text}"); ` +
      'merge them (merge: true) or word this one differently',
    'text',
  );

/** Writes the edited row, then its index row and scope counts when the words or the scope moved. */
function applyEdit(db: Db, row: FactRow, next: Edited, scopeId: number, folded: string, now: number): FactRow {
  db.prepare(
    `UPDATE memory_fact_rows SET text = ?, kind = ?, confidence = ?, scope_id = ?,
       normalized_key = ?, updated_at = ?,
       requested_scope = CASE WHEN ? THEN NULL ELSE requested_scope END,
       coercion_reason = CASE WHEN ? THEN NULL ELSE coercion_reason END
     WHERE seq = ?`,
  ).run(
    next.text,
    kindCode(next.kind),
    confidenceCode(next.confidence),
    scopeId,
    factKeyOfFolded(folded),
    now,
    // A person placed the fact: the extractor's coercion note no longer describes it.
    next.moved ? 1 : 0,
    next.moved ? 1 : 0,
    row.seq,
  );
  if (next.moved) moveScopeCount(db, row.scope_id, scopeId);
  if (next.moved || next.textChanged) reindex(db, row.seq, scopeId, next.text);
  return factRowAt(db, row.seq);
}

/**
 * Applies a person's edit. When the new text (or scope) makes the fact equal to another fact in
 * the target scope, the edit is refused with a conflict naming that fact, unless `merge` is set:
 * then the two become one.
 */
export function editFact(
  db: Db,
  factId: string,
  edit: FactEdit,
  options: { actor: string; now: number; merge: boolean },
): EditResult {
  const row = getFactRow(db, factId);
  if (!row) throw notFound('fact', factId, 'factId');
  const next = editedValues(row, edit);
  const same = !next.moved && !next.textChanged && next.kind === row.kind && next.confidence === row.confidence;
  if (same) return { fact: toFact(row), changed: false, mergedInto: null };
  const scopeId = next.moved ? scopeIdFor(db, next.scope, next.key) : row.scope_id;
  const folded = foldForKey(next.text);
  const twin = findFolded(db, scopeId, folded);
  if (twin && twin.seq !== row.seq) {
    if (!options.merge) throw conflictWith(twin, next);
    const merged = mergeFacts(db, row, twin, edit, options.actor, options.now);
    // A scope row created for the move but left unused must not linger.
    db.prepare('DELETE FROM memory_scopes WHERE id = ? AND facts <= 0').run(scopeId);
    return { fact: toFact(merged), changed: true, mergedInto: merged.id };
  }
  writeHistory(db, row, 'edit', options.actor, options.now);
  const updated = applyEdit(db, row, next, scopeId, folded, options.now);
  return { fact: toFact(updated), changed: true, mergedInto: null };
}

const RECALL_CHANGE: Record<FactRecallMode, Record<FactRecallMode, HistoryChange | null>> = {
  normal: { normal: null, pinned: 'pin', paused: 'pause' },
  pinned: { normal: 'unpin', pinned: null, paused: 'pause' },
  paused: { normal: 'resume', pinned: 'pin', paused: null },
};

/** Pins, pauses or releases a fact (one state at a time: pinning a paused fact resumes it). */
export function setRecallMode(
  db: Db,
  factId: string,
  mode: FactRecallMode,
  options: { actor: string; now: number },
): { fact: FactRecord; changed: boolean } {
  const row = getFactRow(db, factId);
  if (!row) throw notFound('fact', factId, 'factId');
  const change = RECALL_CHANGE[row.recall][mode];
  if (!change) return { fact: toFact(row), changed: false };
  writeHistory(db, row, change, options.actor, options.now);
  db.prepare('UPDATE memory_fact_rows SET recall = ? WHERE seq = ?').run(mode, row.seq);
  return { fact: toFact(factRowAt(db, row.seq)), changed: true };
}

export interface ManualFact {
  text: string;
  kind: FactKind;
  confidence: Confidence;
  scope: Scope;
  key: string;
  /** The session that supports it (session scope), or null: a fact a person states for a context. */
  sessionId: string | null;
}

/**
 * A fact a person adds for a context. It is deduplicated like every other fact: the same text
 * in the same scope returns the existing fact. With no supporting session it starts at
 * reinforcement 0 (no session supports it yet) and no session's forget removes it.
 */
export function createManualFact(
  db: Db,
  input: ManualFact,
  options: { actor: string; now: number },
): { fact: FactRecord; created: boolean } {
  const text = normalizeFactText(input.text);
  const scopeId = scopeIdFor(db, input.scope, input.key);
  const folded = foldForKey(text);
  const existing = findFolded(db, scopeId, folded);
  if (existing) return { fact: toFact(existing), created: false };
  const now = options.now;
  const fact: Omit<FactRecord, 'recall'> = {
    id: newId(),
    scope: input.scope,
    scopeKey: input.key,
    kind: input.kind,
    text,
    confidence: input.confidence,
    reinforcement: input.sessionId ? 1 : 0,
    origin: 'manual',
    requestedScope: null,
    coercionReason: null,
    firstSeenAt: now,
    lastSeenAt: now,
    updatedAt: now,
  };
  const seq = insertFactRow(db, fact, scopeId, factKeyOfFolded(folded));
  if (input.sessionId) {
    db.prepare(
      `INSERT INTO memory_fact_evidence_rows (fact_seq, session_ref, message_id, created_at, last_seen_at)
       VALUES (?, ?, NULL, ?, ?)`,
    ).run(seq, evidenceSessionRef(db, input.sessionId), now, now);
  }
  const row = db.prepare('SELECT * FROM memory_facts WHERE seq = ?').get(seq) as FactRow;
  writeHistory(db, row, 'create', options.actor, now);
  return { fact: toFact(row), created: true };
}

interface HistoryRow {
  changed_at: number;
  actor: string;
  change: HistoryChange;
  previous_text: string | null;
  previous_kind: FactKind | null;
  previous_scope: Scope | null;
  previous_scope_key: string | null;
  previous_confidence: Confidence | null;
  previous_recall: FactRecallMode | null;
  note: string | null;
}

/** A fact's changes, newest first. */
export function factHistory(db: Db, factId: string, limit = 200): HistoryEntry[] {
  const row = getFactRow(db, factId);
  if (!row) throw notFound('fact', factId, 'factId');
  return (
    db
      .prepare('SELECT * FROM memory_fact_history WHERE fact_seq = ? ORDER BY id DESC LIMIT ?')
      .all(row.seq, limit) as HistoryRow[]
  ).map((h) => ({
    at: h.changed_at,
    actor: h.actor,
    change: h.change,
    previous: {
      text: h.previous_text,
      kind: h.previous_kind,
      scope: h.previous_scope,
      scopeKey: h.previous_scope_key,
      confidence: h.previous_confidence,
      recall: h.previous_recall,
    },
    note: h.note,
  }));
}
