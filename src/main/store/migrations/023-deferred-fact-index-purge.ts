/**
 * Forgetting a fact no longer waits on the full-text index. Deleting a row from a contentless
 * FTS5 table costs ~25 µs, so forgetting a session that supported 10k facts spent most of its
 * transaction there. Now the delete trigger drops the fact's index-row mapping at once (recall and
 * search join through it, so the fact is unfindable the moment the transaction commits) and queues
 * the FTS rowid in memory_fact_index_purge; the engine's index maintenance deletes the queued
 * tokens in short transactions right after (and at start-up if a process stopped first).
 *
 * A queued rowid must never be handed to a new fact, or its stale tokens would point at it, so
 * rowid allocation takes the minimum over the live mappings and the queue.
 */
const TOP = 1125899906842624;
const nextRowid = `((SELECT MIN(m) FROM (
    SELECT MIN(rowid) AS m FROM memory_fact_index_rows
    UNION ALL SELECT MIN(rowid) FROM memory_fact_index_purge
    UNION ALL SELECT ${TOP})) - 1)`;

export const up = `
CREATE TABLE memory_fact_index_purge (
  rowid INTEGER PRIMARY KEY
);

DROP TRIGGER memory_facts_index_insert;
DROP TRIGGER memory_facts_index_delete;
DROP TRIGGER memory_facts_index_update;

CREATE TRIGGER memory_facts_index_insert AFTER INSERT ON memory_facts WHEN new.status = 'active'
BEGIN
  INSERT INTO memory_fact_index_rows (rowid, fact_id) VALUES (${nextRowid}, new.id);
  INSERT INTO memory_facts_fts (rowid, tag, text)
    VALUES ((SELECT rowid FROM memory_fact_index_rows WHERE fact_id = new.id),
            's' || hex(new.scope || ':' || new.scope_key), new.text);
  INSERT INTO memory_scope_fact_counts (scope, scope_key, facts) VALUES (new.scope, new.scope_key, 1)
    ON CONFLICT (scope, scope_key) DO UPDATE SET facts = facts + 1;
END;

CREATE TRIGGER memory_facts_index_delete AFTER DELETE ON memory_facts
BEGIN
  INSERT OR IGNORE INTO memory_fact_index_purge (rowid)
    SELECT rowid FROM memory_fact_index_rows WHERE fact_id = old.id;
  UPDATE memory_scope_fact_counts SET facts = facts - 1
    WHERE scope = old.scope AND scope_key = old.scope_key
      AND EXISTS (SELECT 1 FROM memory_fact_index_rows WHERE fact_id = old.id);
  DELETE FROM memory_fact_index_rows WHERE fact_id = old.id;
END;

CREATE TRIGGER memory_facts_index_update AFTER UPDATE OF text, scope, scope_key, status ON memory_facts
BEGIN
  DELETE FROM memory_facts_fts WHERE rowid = (SELECT rowid FROM memory_fact_index_rows WHERE fact_id = old.id);
  UPDATE memory_scope_fact_counts SET facts = facts - 1
    WHERE scope = old.scope AND scope_key = old.scope_key
      AND EXISTS (SELECT 1 FROM memory_fact_index_rows WHERE fact_id = old.id);
  DELETE FROM memory_fact_index_rows WHERE fact_id = old.id;
  INSERT INTO memory_fact_index_rows (rowid, fact_id)
    SELECT ${nextRowid}, new.id WHERE new.status = 'active';
  INSERT INTO memory_facts_fts (rowid, tag, text)
    SELECT rowid, 's' || hex(new.scope || ':' || new.scope_key), new.text
    FROM memory_fact_index_rows WHERE fact_id = new.id;
  INSERT INTO memory_scope_fact_counts (scope, scope_key, facts)
    SELECT new.scope, new.scope_key, 1 WHERE new.status = 'active'
    ON CONFLICT (scope, scope_key) DO UPDATE SET facts = facts + 1;
END;
`;
