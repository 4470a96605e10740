/**
 * Provenance of conversations imported from ChatGPT and Claude data exports and JSONL
 * transcripts. Each imported conversation is one top-level session, keyed by its source and the
 * original conversation id, so importing the same export again finds it; each imported message
 * is keyed by its original id (or a stable hash where the format has none), so only messages
 * not seen before are appended. Forgetting the session removes its provenance with it (cascade),
 * so nothing about a forgotten conversation stays behind.
 *
 * extraction_pending marks a session whose new messages extraction has not yet worked through;
 * the background queue clears it once the session's cursor has caught up.
 */
export const up = `
CREATE TABLE import_conversations (
  session_id         TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  source             TEXT NOT NULL CHECK (source = 'chatgpt' OR source = 'claude' OR source = 'jsonl'),
  original_id        TEXT NOT NULL,
  content_hash       TEXT NOT NULL,              -- sha256 of the ordered message keys imported so far
  message_count      INTEGER NOT NULL DEFAULT 0, -- messages imported into the session
  extraction_pending INTEGER NOT NULL DEFAULT 0,
  imported_at        INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL,
  UNIQUE (source, original_id)
);
CREATE INDEX import_conversations_pending ON import_conversations(imported_at, session_id)
  WHERE extraction_pending = 1;

CREATE TABLE import_messages (
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  message_key TEXT NOT NULL,                     -- the original message id, or a stable hash
  message_id  TEXT NOT NULL,                     -- the session_messages row it became
  PRIMARY KEY (session_id, message_key)
) WITHOUT ROWID;
`;
