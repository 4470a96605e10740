/**
 * The fact store rebuilt on integer keys, so writing a fact costs a few B-tree inserts instead
 * of a dozen (100k upserts with evidence took 11-13 s; the foundation target is under 5 s).
 *
 * - memory_facts gets `seq INTEGER PRIMARY KEY AUTOINCREMENT`: a stable rowid, never reused,
 *   ascending in creation order. It is the fact's recall-index rowid too, so the separate
 *   mapping table (memory_fact_index_rows) goes, and rows reach FTS5 in ascending order, which
 *   it appends without flushing. The public id (UUIDv7 text) stays, UNIQUE.
 * - Scopes live once in memory_scopes (which also keeps the per-scope fact count BM25 needs,
 *   replacing memory_scope_fact_counts); facts point at them by integer. scope and scope_key
 *   stay on the fact row for reading, unindexed. A scope's row exists while it has facts.
 * - normalized_key is a 52-bit integer prefix of the folded text's sha256 with a non-unique
 *   index; the store confirms a hit by comparing folded texts, so a collision cannot merge two
 *   facts.
 * - Evidence is keyed by (fact seq, session) itself (WITHOUT ROWID): one B-tree where there were
 *   a rowid table and a unique index, and a fact's evidence sits together, appended in seq order.
 *   Sessions reach their evidence through (session_id, last_seen_at), which Dream's watermark
 *   needs anyway; the plain session_id index it made redundant goes.
 * - No insert or update triggers: recordFact writes the index row and the scope count itself.
 *   Any trigger on a statement opens a savepoint, and FTS5 flushes its pending terms at every
 *   savepoint, which made every fact insert a separate index segment write (`npm run bench --
 *   fts-write`). The delete trigger stays: deletes never write the index in the same statement.
 *   Text and scope are immutable (nothing in the product edits them); a trigger enforces it so a
 *   hand-written UPDATE cannot leave the index stale.
 */
const HEX_DIGITS = 13;

/** The integer value of the first 13 hex digits of a 128-bit hex key (the old normalized_key). */
const hexPrefixToInt = (column: string): string =>
  Array.from(
    { length: HEX_DIGITS },
    (_, i) => `(instr('0123456789abcdef', substr(${column}, ${i + 1}, 1)) - 1) * ${16 ** (HEX_DIGITS - 1 - i)}`,
  ).join(' + ');

/**
 * A CHECK that a column holds one of `values`, written as equalities joined by OR: SQLite builds
 * an ephemeral lookup table for a CHECK's `IN (...)` list on every statement execution, which
 * cost ~10 µs per inserted fact (a fifth of the whole upsert); the OR chain costs nothing.
 */
const oneOf = (column: string, values: readonly string[]): string =>
  `CHECK (${values.map((v) => `${column} = '${v}'`).join(' OR ')})`;

const CONFIDENCE_RANK = "(CASE confidence WHEN 'high' THEN 2 WHEN 'medium' THEN 1 ELSE 0 END)";

export const up = `
DROP TRIGGER memory_facts_index_insert;
DROP TRIGGER memory_facts_index_delete;
DROP TRIGGER memory_facts_index_update;

CREATE TABLE memory_scopes (
  id        INTEGER PRIMARY KEY,
  scope     TEXT NOT NULL ${oneOf('scope', ['user', 'project', 'workspace', 'folder', 'session'])},
  scope_key TEXT NOT NULL,
  facts     INTEGER NOT NULL DEFAULT 0,      -- facts in this scope, for BM25's collection size
  UNIQUE (scope, scope_key)
);
INSERT INTO memory_scopes (scope, scope_key, facts)
  SELECT scope, scope_key, count(*) FROM memory_facts GROUP BY scope, scope_key;

CREATE TABLE memory_facts_new (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,  -- also the recall index rowid
  id              TEXT NOT NULL UNIQUE,
  scope_id        INTEGER NOT NULL REFERENCES memory_scopes(id),
  scope           TEXT NOT NULL ${oneOf('scope', ['user', 'project', 'workspace', 'folder', 'session'])},
  scope_key       TEXT NOT NULL,                -- '' for the single user scope
  kind            TEXT NOT NULL ${oneOf('kind', ['preference', 'profile', 'decision', 'convention', 'constraint', 'fact'])},
  text            TEXT NOT NULL,
  normalized_key  INTEGER NOT NULL,             -- 52-bit sha256 prefix of the folded text
  confidence      TEXT NOT NULL DEFAULT 'medium' ${oneOf('confidence', ['low', 'medium', 'high'])},
  reinforcement   INTEGER NOT NULL DEFAULT 0,   -- distinct sessions with evidence
  status          TEXT NOT NULL DEFAULT 'active' ${oneOf('status', ['active'])},
  origin          TEXT NOT NULL DEFAULT 'manual' ${oneOf('origin', ['manual', 'extraction', 'legacy_note'])},
  requested_scope TEXT,                         -- set when the store coerced the scope
  coercion_reason TEXT,
  first_seen_at   INTEGER NOT NULL,
  last_seen_at    INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  CHECK ((scope = 'user') = (scope_key = ''))
);
INSERT INTO memory_facts_new (id, scope_id, scope, scope_key, kind, text, normalized_key, confidence, reinforcement,
    status, origin, requested_scope, coercion_reason, first_seen_at, last_seen_at, updated_at)
  SELECT f.id, s.id, f.scope, f.scope_key, f.kind, f.text, ${hexPrefixToInt('f.normalized_key')}, f.confidence,
    f.reinforcement, f.status, f.origin, f.requested_scope, f.coercion_reason, f.first_seen_at, f.last_seen_at, f.updated_at
  FROM memory_facts f JOIN memory_scopes s ON s.scope = f.scope AND s.scope_key = f.scope_key
  ORDER BY f.id;

CREATE TABLE memory_fact_evidence_new (
  fact_seq     INTEGER NOT NULL REFERENCES memory_facts_new(seq) ON DELETE CASCADE,
  session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  message_id   TEXT REFERENCES session_messages(id) ON DELETE SET NULL,
  created_at   INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  PRIMARY KEY (fact_seq, session_id)
) WITHOUT ROWID;
INSERT INTO memory_fact_evidence_new (fact_seq, session_id, message_id, created_at, last_seen_at)
  SELECT f.seq, e.session_id, e.message_id, e.created_at, e.last_seen_at
  FROM memory_fact_evidence e JOIN memory_facts_new f ON f.id = e.fact_id
  ORDER BY f.seq, e.session_id;

-- The old index's rows go: they were keyed by the mapping table's rowids.
DROP TABLE memory_facts_fts;
DROP TABLE memory_fact_index_rows;
DROP TABLE memory_scope_fact_counts;
DELETE FROM memory_fact_index_purge;
DROP TABLE memory_fact_evidence;
DROP TABLE memory_facts;
ALTER TABLE memory_facts_new RENAME TO memory_facts;
ALTER TABLE memory_fact_evidence_new RENAME TO memory_fact_evidence;

CREATE INDEX memory_facts_key ON memory_facts(scope_id, normalized_key);
CREATE INDEX memory_facts_scope_updated ON memory_facts(scope_id, updated_at);
CREATE INDEX memory_facts_scope_reinforcement ON memory_facts(scope_id, reinforcement);
CREATE INDEX memory_facts_scope_confidence_order ON memory_facts(scope_id, ${CONFIDENCE_RANK});
CREATE INDEX memory_facts_updated ON memory_facts(updated_at);
CREATE INDEX memory_facts_reinforcement ON memory_facts(reinforcement);
CREATE INDEX memory_facts_confidence_order ON memory_facts(${CONFIDENCE_RANK});

CREATE INDEX memory_fact_evidence_session_seen ON memory_fact_evidence(session_id, last_seen_at);
CREATE INDEX memory_fact_evidence_message ON memory_fact_evidence(message_id) WHERE message_id IS NOT NULL;

CREATE VIRTUAL TABLE memory_facts_fts USING fts5(
  tag, text,
  content = '', contentless_delete = 1,
  tokenize = "unicode61 remove_diacritics 0"
);
INSERT INTO memory_facts_fts (rowid, tag, text)
  SELECT seq, 's' || hex(scope || ':' || scope_key), text FROM memory_facts ORDER BY seq;

-- A scope's row goes with its last fact, so a forgotten session's id or project's path does not
-- outlive what was forgotten.
CREATE TRIGGER memory_facts_index_delete AFTER DELETE ON memory_facts
BEGIN
  INSERT OR IGNORE INTO memory_fact_index_purge (rowid) VALUES (old.seq);
  UPDATE memory_scopes SET facts = facts - 1 WHERE id = old.scope_id;
  DELETE FROM memory_scopes WHERE id = old.scope_id AND facts <= 0;
END;

CREATE TRIGGER memory_facts_immutable BEFORE UPDATE OF id, seq, scope_id, scope, scope_key, text, normalized_key ON memory_facts
BEGIN
  SELECT RAISE(ABORT, 'a fact''s id, scope and text are immutable: forget it and record a new one');
END;
`;
