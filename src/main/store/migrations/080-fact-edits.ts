/**
 * Facts become editable by people (text, kind, scope, confidence), pinnable and pausable.
 *
 * - `recall` says how automatic recall treats a fact: 'normal', 'pinned' (always a candidate
 *   for its scope, whatever the candidate caps) or 'paused' (kept and listed, never recalled).
 *   An added column with a constant default costs nothing on a large table; the CHECK is the
 *   OR chain migration 050 explains.
 * - A partial index holds only pinned facts, per scope, so loading a session's pinned
 *   candidates is one probe per visible scope.
 * - memory_fact_history keeps every change a person (or an agent) made to a fact: who, when,
 *   what, and the values before it, so an edit never loses the text it replaced. Rows go with
 *   their fact (ON DELETE CASCADE), so forgetting a fact forgets its earlier wording too.
 * - Text and scope are no longer immutable: the store's editFact rewrites the fact's recall
 *   index row, dedup key and scope counts in the same transaction. id and seq stay immutable
 *   (evidence and the index key on seq).
 */
export const up = `
DROP TRIGGER memory_facts_immutable;
CREATE TRIGGER memory_facts_immutable BEFORE UPDATE OF id, seq ON memory_facts
BEGIN
  SELECT RAISE(ABORT, 'a fact''s id and seq are immutable');
END;

ALTER TABLE memory_facts ADD COLUMN recall TEXT NOT NULL DEFAULT 'normal'
  CHECK (recall = 'normal' OR recall = 'pinned' OR recall = 'paused');
CREATE INDEX memory_facts_pinned ON memory_facts(scope_id) WHERE recall = 'pinned';
CREATE INDEX memory_facts_recall_state ON memory_facts(recall) WHERE recall != 'normal';

CREATE TABLE memory_fact_history (
  id                  INTEGER PRIMARY KEY,
  fact_seq            INTEGER NOT NULL REFERENCES memory_facts(seq) ON DELETE CASCADE,
  changed_at          INTEGER NOT NULL,
  actor               TEXT NOT NULL,
  change              TEXT NOT NULL,      -- edit | pin | unpin | pause | resume | merge | create
  previous_text       TEXT,
  previous_kind       TEXT,
  previous_scope      TEXT,
  previous_scope_key  TEXT,
  previous_confidence TEXT,
  previous_recall     TEXT,
  note                TEXT
);
CREATE INDEX memory_fact_history_fact ON memory_fact_history(fact_seq, id);
`;
