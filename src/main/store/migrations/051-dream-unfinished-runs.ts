/**
 * A Dream run's finishing steps (INDEX.md, LINT.md, the LOG.md entry) come after its watermarks
 * are committed. Each batch records what it did here, in the same transaction as its
 * watermarks, and the row is deleted once the run is finished; a row left behind by a killed
 * run is finished by the next run, so the index and the log are never missing a run.
 */
export const up = `
CREATE TABLE dream_unfinished_runs (
  run_id        TEXT PRIMARY KEY,
  started_at    INTEGER NOT NULL,
  drain         INTEGER NOT NULL,
  consolidator  TEXT NOT NULL,
  sessions      INTEGER NOT NULL DEFAULT 0,
  notes         INTEGER NOT NULL DEFAULT 0,
  failed        INTEGER NOT NULL DEFAULT 0,
  pages         TEXT NOT NULL DEFAULT '[]',  -- JSON array of the wiki pages the run wrote
  errors        TEXT NOT NULL DEFAULT '[]'   -- JSON array of the first failures, for the log
);
`;
