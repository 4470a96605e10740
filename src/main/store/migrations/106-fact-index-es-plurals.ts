/**
 * The fact index rebuilt after the folding of `-es` plurals changed (text/tokenize.ts): "classes",
 * "boxes", "pushes" and "matches" now fold as "class", "box", "push" and "match" do. The index
 * holds each fact's folded words, so rows written with the old folding would never meet a query
 * folded the new way. Built as migration 102 built it, from the same SQL function the writers use.
 */
export const up = `
DROP TABLE memory_facts_fts;
CREATE VIRTUAL TABLE memory_facts_fts USING fts5(
  terms,
  content = '', contentless_delete = 1, detail = none,
  tokenize = "unicode61 remove_diacritics 0 tokenchars '_'"
);
INSERT INTO memory_facts_fts (rowid, terms) SELECT seq, fact_index_terms(scope_id, text) FROM memory_fact_rows ORDER BY seq;
DELETE FROM memory_fact_index_purge;
DELETE FROM recall_index_merges WHERE index_name = 'memory_facts_fts';
`;
