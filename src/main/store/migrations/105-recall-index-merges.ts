/**
 * The size of each recall index (FTS5 %_data rows) when it was last merged whole. Index
 * maintenance merges a large index again only once it has grown by a tenth since; kept in memory
 * only, every new process (an agent client starts one per session) rewrote the whole index after
 * its first writes settled: ~4 MB of pages at 100k facts, for any number of new rows.
 */
export const up = `
CREATE TABLE recall_index_merges (
  index_name  TEXT PRIMARY KEY,
  pages       INTEGER NOT NULL
) WITHOUT ROWID;
`;
