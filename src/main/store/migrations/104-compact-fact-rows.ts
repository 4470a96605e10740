/**
 * Facts stored in fewer bytes (100k facts took 56 MB at rest; the target is under 40 MB):
 *
 * - The row moves to memory_fact_rows without scope and scope_key (25 bytes a fact, a copy of
 *   what memory_scopes holds once per scope), with kind, confidence and origin as small integers
 *   (0 and 1 take no bytes at all in a record) and a 31-bit dedupe key instead of 52 bits (the
 *   store confirms every key hit by comparing folded texts, so a shorter key only means a rare
 *   extra comparison). memory_facts becomes a view with the old columns, decoded, so readers
 *   (recall, the window, exports, forget's report) read it unchanged; it also has
 *   confidence_rank, the stored integer, which the confidence sort index covers. Writers write
 *   memory_fact_rows with the codes of store/fact-codes.ts, which must match the view's CASEs.
 * - The per-scope sort indexes go (4.2 MB at 100k, and three random B-tree inserts per new fact):
 *   a scope's page walks the store-wide sort index skipping other scopes' facts when the scope
 *   is large, and sorts the scope's own facts (found through memory_facts_key) when it is small
 *   (store/fact-order.ts). The confidence index is a plain column index now, not an expression.
 *
 * Tables that point at a fact's seq are rebuilt to point at memory_fact_rows before the old
 * table is dropped, so dropping it cascades into nothing. The AUTOINCREMENT high-water mark is
 * carried over: a forgotten fact's seq (its recall-index rowid) is never handed out again.
 */
export const up = `
DROP VIEW memory_fact_evidence;

CREATE TABLE memory_fact_rows (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,  -- also the recall index rowid
  id              TEXT NOT NULL UNIQUE,
  scope_id        INTEGER NOT NULL REFERENCES memory_scopes(id),
  kind            INTEGER NOT NULL CHECK (kind BETWEEN 0 AND 5),        -- see store/fact-codes.ts
  text            TEXT NOT NULL,
  normalized_key  INTEGER NOT NULL,                                     -- 31-bit sha256 prefix of the folded text
  confidence      INTEGER NOT NULL DEFAULT 1 CHECK (confidence BETWEEN 0 AND 2),  -- 0 low, 1 medium, 2 high
  reinforcement   INTEGER NOT NULL DEFAULT 0,                           -- distinct sessions with evidence
  origin          INTEGER NOT NULL DEFAULT 0 CHECK (origin BETWEEN 0 AND 2),      -- see store/fact-codes.ts
  requested_scope TEXT,                                                 -- set when the store coerced the scope
  coercion_reason TEXT,
  first_seen_at   INTEGER NOT NULL,
  last_seen_at    INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  recall          TEXT NOT NULL DEFAULT 'normal' CHECK (recall = 'normal' OR recall = 'pinned' OR recall = 'paused')
);
INSERT INTO memory_fact_rows (seq, id, scope_id, kind, text, normalized_key, confidence, reinforcement, origin,
    requested_scope, coercion_reason, first_seen_at, last_seen_at, updated_at, recall)
  SELECT seq, id, scope_id,
    CASE kind WHEN 'preference' THEN 0 WHEN 'profile' THEN 1 WHEN 'decision' THEN 2 WHEN 'convention' THEN 3
      WHEN 'constraint' THEN 4 ELSE 5 END,
    text, normalized_key >> 21,
    CASE confidence WHEN 'high' THEN 2 WHEN 'medium' THEN 1 ELSE 0 END,
    reinforcement,
    CASE origin WHEN 'extraction' THEN 1 WHEN 'legacy_note' THEN 2 ELSE 0 END,
    requested_scope, coercion_reason, first_seen_at, last_seen_at, updated_at, recall
  FROM memory_facts ORDER BY seq;
INSERT INTO sqlite_sequence (name, seq)
  SELECT 'memory_fact_rows', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'memory_fact_rows');
UPDATE sqlite_sequence SET seq = max(seq, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'memory_facts'), 0))
  WHERE name = 'memory_fact_rows';

CREATE TABLE memory_fact_evidence_rows_new (
  fact_seq     INTEGER NOT NULL REFERENCES memory_fact_rows(seq) ON DELETE CASCADE,
  session_ref  INTEGER NOT NULL REFERENCES memory_evidence_sessions(ref) ON DELETE CASCADE,
  message_id   TEXT REFERENCES session_messages(id) ON DELETE SET NULL,
  created_at   INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  PRIMARY KEY (fact_seq, session_ref)
) WITHOUT ROWID;
INSERT INTO memory_fact_evidence_rows_new SELECT fact_seq, session_ref, message_id, created_at, last_seen_at
  FROM memory_fact_evidence_rows ORDER BY fact_seq, session_ref;
DROP TABLE memory_fact_evidence_rows;
ALTER TABLE memory_fact_evidence_rows_new RENAME TO memory_fact_evidence_rows;
CREATE INDEX memory_fact_evidence_session_seen ON memory_fact_evidence_rows(session_ref, last_seen_at);
CREATE INDEX memory_fact_evidence_message ON memory_fact_evidence_rows(message_id) WHERE message_id IS NOT NULL;

CREATE TABLE memory_fact_history_new (
  id                  INTEGER PRIMARY KEY,
  fact_seq            INTEGER NOT NULL REFERENCES memory_fact_rows(seq) ON DELETE CASCADE,
  changed_at          INTEGER NOT NULL,
  actor               TEXT NOT NULL,
  change              TEXT NOT NULL,  -- edit | pin | unpin | pause | resume | merge | create
  previous_text       TEXT,
  previous_kind       TEXT,
  previous_scope      TEXT,
  previous_scope_key  TEXT,
  previous_confidence TEXT,
  previous_recall     TEXT,
  note                TEXT
);
INSERT INTO memory_fact_history_new SELECT id, fact_seq, changed_at, actor, change, previous_text, previous_kind,
    previous_scope, previous_scope_key, previous_confidence, previous_recall, note
  FROM memory_fact_history ORDER BY id;
DROP TABLE memory_fact_history;
ALTER TABLE memory_fact_history_new RENAME TO memory_fact_history;
CREATE INDEX memory_fact_history_fact ON memory_fact_history(fact_seq, id);

CREATE TABLE recall_row_facts_new (
  fact_seq   INTEGER NOT NULL REFERENCES memory_fact_rows(seq) ON DELETE CASCADE,
  message_id TEXT NOT NULL REFERENCES session_messages(id) ON DELETE CASCADE,
  PRIMARY KEY (fact_seq, message_id)
) WITHOUT ROWID;
INSERT INTO recall_row_facts_new SELECT fact_seq, message_id FROM recall_row_facts ORDER BY fact_seq, message_id;
DROP TABLE recall_row_facts;
ALTER TABLE recall_row_facts_new RENAME TO recall_row_facts;
CREATE INDEX recall_row_facts_message ON recall_row_facts(message_id);

-- Nothing points at the old table any more: dropping it deletes no other row (and fires no trigger).
DROP TABLE memory_facts;

CREATE INDEX memory_facts_key ON memory_fact_rows(scope_id, normalized_key);
CREATE INDEX memory_facts_updated ON memory_fact_rows(updated_at);
CREATE INDEX memory_facts_reinforcement ON memory_fact_rows(reinforcement);
CREATE INDEX memory_facts_confidence_order ON memory_fact_rows(confidence);
CREATE INDEX memory_facts_pinned ON memory_fact_rows(scope_id) WHERE recall = 'pinned';
CREATE INDEX memory_facts_recall_state ON memory_fact_rows(recall) WHERE recall != 'normal';

CREATE TRIGGER memory_facts_index_delete AFTER DELETE ON memory_fact_rows
BEGIN
  INSERT OR IGNORE INTO memory_fact_index_purge (rowid) VALUES (old.seq);
  UPDATE memory_scopes SET facts = facts - 1 WHERE id = old.scope_id;
  DELETE FROM memory_scopes WHERE id = old.scope_id AND facts <= 0;
END;
CREATE TRIGGER memory_facts_immutable BEFORE UPDATE OF id, seq ON memory_fact_rows
BEGIN
  SELECT RAISE(ABORT, 'a fact''s id and seq are immutable');
END;

-- LEFT JOIN (every fact has its scope row, so the rows are the same as an inner join's): the fact
-- rows stay the outer loop, so a read in seq or sort-index order stays in that order once SQLite
-- has statistics (an inner join let it start from memory_scopes and sort the whole store), a
-- filter on scope or scope_key turns it back into an inner join SQLite may reorder, and a read
-- that uses no scope column skips memory_scopes altogether.
CREATE VIEW memory_facts AS
  SELECT f.seq, f.id, f.scope_id, s.scope, s.scope_key,
    CASE f.kind WHEN 0 THEN 'preference' WHEN 1 THEN 'profile' WHEN 2 THEN 'decision' WHEN 3 THEN 'convention'
      WHEN 4 THEN 'constraint' ELSE 'fact' END AS kind,
    f.text, f.normalized_key,
    CASE f.confidence WHEN 2 THEN 'high' WHEN 1 THEN 'medium' ELSE 'low' END AS confidence,
    f.reinforcement,
    CASE f.origin WHEN 1 THEN 'extraction' WHEN 2 THEN 'legacy_note' ELSE 'manual' END AS origin,
    f.requested_scope, f.coercion_reason, f.first_seen_at, f.last_seen_at, f.updated_at, f.recall,
    f.confidence AS confidence_rank
  FROM memory_fact_rows f LEFT JOIN memory_scopes s ON s.id = f.scope_id;

-- The same for evidence: every row's session ref exists (ON DELETE CASCADE).
CREATE VIEW memory_fact_evidence AS
  SELECT e.fact_seq, s.session_id, e.message_id, e.created_at, e.last_seen_at, e.session_ref
  FROM memory_fact_evidence_rows e LEFT JOIN memory_evidence_sessions s ON s.ref = e.session_ref;
`;
