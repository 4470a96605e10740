/**
 * Extraction bookkeeping beyond the foundation cursor: consecutive failures drive the retry
 * backoff (attempts never resets), and legacy import remembers which source sessions it has
 * committed so a restart after a crash continues where it stopped.
 */
export const up = `
ALTER TABLE memory_extraction_states ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory_extraction_states ADD COLUMN last_success_at INTEGER;
ALTER TABLE memory_extraction_states ADD COLUMN last_extractor TEXT;

CREATE INDEX memory_extraction_states_status ON memory_extraction_states(status, next_attempt_at);

CREATE TABLE legacy_import_sessions (
  session_id   TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  bullets_hash TEXT NOT NULL,     -- sha256 of the session's parsed bullets: same notes, nothing to redo
  bullet_count INTEGER NOT NULL,
  imported_at  INTEGER NOT NULL
);
`;
