/**
 * The recall index over memory_facts.text.
 *
 * Scope is applied inside the full-text index, before any ranking: every indexed fact carries a
 * scope tag token (`s` + hex of "scope:key") in its own column, and recall asks for
 * `tag:(visible scopes) AND text:(terms)`. FTS5 intersects the two posting lists by seeking, so
 * a common term costs what it matches inside the session's scopes, not what it matches across
 * the whole database (a MATCH with the scope filtered afterwards is what gave p99 ~130 ms at 1M
 * facts).
 *
 * FTS rowids come from memory_fact_index_rows and count DOWN from 2^50 (inside JavaScript's safe integers): ascending rowid order,
 * which FTS5 walks fastest, is then newest-first, so a capped candidate list keeps the newest
 * matches. memory_facts has no INTEGER PRIMARY KEY (its implicit rowid may change on VACUUM), so
 * the mapping lives in its own table. memory_scope_fact_counts gives BM25 its collection size
 * (the facts visible in a scope) without counting rows at query time.
 *
 * Triggers keep all three in step with memory_facts whoever writes it.
 */
export const up = `
CREATE TABLE memory_fact_index_rows (
  rowid   INTEGER PRIMARY KEY,
  fact_id TEXT NOT NULL UNIQUE
);

CREATE TABLE memory_scope_fact_counts (
  scope     TEXT NOT NULL,
  scope_key TEXT NOT NULL,
  facts     INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (scope, scope_key)
) WITHOUT ROWID;

CREATE VIRTUAL TABLE memory_facts_fts USING fts5(
  tag, text,
  content = '', contentless_delete = 1,
  tokenize = "unicode61 remove_diacritics 0"
);

CREATE TRIGGER memory_facts_index_insert AFTER INSERT ON memory_facts WHEN new.status = 'active'
BEGIN
  INSERT INTO memory_fact_index_rows (rowid, fact_id)
    VALUES ((SELECT COALESCE(MIN(rowid), 1125899906842624) - 1 FROM memory_fact_index_rows), new.id);
  INSERT INTO memory_facts_fts (rowid, tag, text)
    VALUES ((SELECT rowid FROM memory_fact_index_rows WHERE fact_id = new.id),
            's' || hex(new.scope || ':' || new.scope_key), new.text);
  INSERT INTO memory_scope_fact_counts (scope, scope_key, facts) VALUES (new.scope, new.scope_key, 1)
    ON CONFLICT (scope, scope_key) DO UPDATE SET facts = facts + 1;
END;

CREATE TRIGGER memory_facts_index_delete AFTER DELETE ON memory_facts
BEGIN
  DELETE FROM memory_facts_fts WHERE rowid = (SELECT rowid FROM memory_fact_index_rows WHERE fact_id = old.id);
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
    SELECT (SELECT COALESCE(MIN(rowid), 1125899906842624) - 1 FROM memory_fact_index_rows), new.id
    WHERE new.status = 'active';
  INSERT INTO memory_facts_fts (rowid, tag, text)
    SELECT rowid, 's' || hex(new.scope || ':' || new.scope_key), new.text
    FROM memory_fact_index_rows WHERE fact_id = new.id;
  INSERT INTO memory_scope_fact_counts (scope, scope_key, facts)
    SELECT new.scope, new.scope_key, 1 WHERE new.status = 'active'
    ON CONFLICT (scope, scope_key) DO UPDATE SET facts = facts + 1;
END;

-- Facts written before this migration.
INSERT INTO memory_fact_index_rows (rowid, fact_id)
  SELECT 1125899906842624 - ROW_NUMBER() OVER (ORDER BY updated_at, id), id
  FROM memory_facts WHERE status = 'active';
INSERT INTO memory_facts_fts (rowid, tag, text)
  SELECT r.rowid, 's' || hex(f.scope || ':' || f.scope_key), f.text
  FROM memory_fact_index_rows r JOIN memory_facts f ON f.id = r.fact_id;
INSERT INTO memory_scope_fact_counts (scope, scope_key, facts)
  SELECT scope, scope_key, count(*) FROM memory_facts WHERE status = 'active' GROUP BY scope, scope_key;
`;
