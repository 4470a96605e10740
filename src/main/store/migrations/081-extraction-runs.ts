/**
 * One row per finished extraction run (stored, nothing new or failed), so the overview can draw
 * runs and failures over time; the cursor table only keeps the latest state per session. Rows go
 * with their session (a forgotten session's id must not linger), and the error is the same
 * bounded, content-free text the cursor keeps.
 */
export const up = `
CREATE TABLE memory_extraction_runs (
  id           INTEGER PRIMARY KEY,
  session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  finished_at  INTEGER NOT NULL,
  outcome      TEXT NOT NULL CHECK (outcome = 'stored' OR outcome = 'nothing-new' OR outcome = 'failed'),
  facts_stored INTEGER NOT NULL DEFAULT 0,
  error        TEXT
);
CREATE INDEX memory_extraction_runs_finished ON memory_extraction_runs(finished_at);
CREATE INDEX memory_extraction_runs_session ON memory_extraction_runs(session_id);
`;
