/** Sessions, messages, semantic facts, evidence, extraction cursors, Dream watermarks, checkpoints. */
export const up = `
CREATE TABLE sessions (
  id                TEXT PRIMARY KEY,
  kind              TEXT NOT NULL CHECK (kind IN ('top-level', 'team-member', 'side-chat')),
  -- lead session for team members, source (main) session for side chats; NULL for top-level
  parent_session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
  project_id        TEXT,
  workspace         TEXT,   -- normalized absolute path
  folder_id         TEXT,
  agent_name        TEXT,
  title             TEXT,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  CHECK ((kind = 'top-level') = (parent_session_id IS NULL))
);
CREATE INDEX sessions_parent ON sessions(parent_session_id);
CREATE INDEX sessions_project ON sessions(project_id) WHERE project_id IS NOT NULL;
CREATE INDEX sessions_workspace ON sessions(workspace) WHERE workspace IS NOT NULL;
CREATE INDEX sessions_folder ON sessions(folder_id) WHERE folder_id IS NOT NULL;
CREATE INDEX sessions_created ON sessions(created_at, id);

CREATE TABLE session_messages (
  id                TEXT PRIMARY KEY,
  session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq               INTEGER NOT NULL,            -- 1, 2, 3 ... per session
  role              TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
  content           TEXT NOT NULL,
  hidden            INTEGER NOT NULL DEFAULT 0,  -- not part of the visible transcript
  side_chat_context INTEGER NOT NULL DEFAULT 0,  -- copy of the source session's context
  tool_call_round   INTEGER NOT NULL DEFAULT 0,  -- intermediate assistant round that called tools
  system_generated  INTEGER NOT NULL DEFAULT 0,  -- synthetic rows (recall blocks, directives)
  is_summary        INTEGER NOT NULL DEFAULT 0,  -- a compaction summary
  compacted         INTEGER NOT NULL DEFAULT 0,  -- replaced by a summary for the provider; kept for audit
  created_at        INTEGER NOT NULL,
  UNIQUE (session_id, seq)
);
CREATE INDEX session_messages_created ON session_messages(session_id, created_at);

CREATE TABLE memory_facts (
  id              TEXT PRIMARY KEY,
  scope           TEXT NOT NULL CHECK (scope IN ('user', 'project', 'workspace', 'folder', 'session')),
  scope_key       TEXT NOT NULL,                -- '' for the single user scope
  kind            TEXT NOT NULL CHECK (kind IN ('preference', 'profile', 'decision', 'convention', 'constraint', 'fact')),
  text            TEXT NOT NULL,
  normalized_key  TEXT NOT NULL,                -- 128-bit sha256 prefix of the folded text (hex)
  confidence      TEXT NOT NULL DEFAULT 'medium' CHECK (confidence IN ('low', 'medium', 'high')),
  reinforcement   INTEGER NOT NULL DEFAULT 0,   -- distinct sessions with evidence
  status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active')),
  origin          TEXT NOT NULL DEFAULT 'manual' CHECK (origin IN ('manual', 'extraction', 'legacy_note')),
  requested_scope TEXT,                         -- set when the store coerced the scope
  coercion_reason TEXT,
  first_seen_at   INTEGER NOT NULL,
  last_seen_at    INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  CHECK ((scope = 'user') = (scope_key = '')),
  UNIQUE (scope, scope_key, normalized_key)
);
CREATE INDEX memory_facts_scope_updated ON memory_facts(scope, scope_key, updated_at);
CREATE INDEX memory_facts_reinforcement ON memory_facts(reinforcement, id);
CREATE INDEX memory_facts_updated ON memory_facts(updated_at, id);

CREATE TABLE memory_fact_evidence (
  id          INTEGER PRIMARY KEY,
  fact_id     TEXT NOT NULL REFERENCES memory_facts(id) ON DELETE CASCADE,
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  message_id  TEXT REFERENCES session_messages(id) ON DELETE SET NULL,
  created_at  INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  UNIQUE (fact_id, session_id)
);
CREATE INDEX memory_fact_evidence_session ON memory_fact_evidence(session_id);
CREATE INDEX memory_fact_evidence_message ON memory_fact_evidence(message_id) WHERE message_id IS NOT NULL;

CREATE TABLE memory_extraction_states (
  session_id          TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  cursor_seq          INTEGER NOT NULL DEFAULT 0,   -- last message seq covered by a successful run
  last_response_count INTEGER NOT NULL DEFAULT 0,   -- completed lead responses covered so far
  pending_response_count INTEGER,                   -- what the in-flight attempt claimed
  pending_cursor_seq  INTEGER,
  status              TEXT NOT NULL DEFAULT 'idle' CHECK (status IN ('idle', 'processing', 'failed')),
  lease_owner         TEXT,
  lease_expires_at    INTEGER,
  attempts            INTEGER NOT NULL DEFAULT 0,
  last_error          TEXT,
  next_attempt_at     INTEGER,
  facts_stored        INTEGER NOT NULL DEFAULT 0,
  candidates_rejected INTEGER NOT NULL DEFAULT 0,
  updated_at          INTEGER NOT NULL
);

CREATE TABLE dream_log (
  session_id     TEXT PRIMARY KEY,       -- no FK: the watermark outlives nothing, forget deletes it
  processed_at   INTEGER NOT NULL,       -- created_at of the newest visible message consumed
  topics_written TEXT,
  updated_at     INTEGER NOT NULL
);

CREATE TABLE dream_notes_log (
  filename      TEXT PRIMARY KEY,        -- e.g. 2026-04-29.md
  source_mtime  INTEGER NOT NULL,        -- mtime observed just before synthesis
  content_hash  TEXT NOT NULL,
  processed_at  INTEGER NOT NULL
);

CREATE TABLE agent_checkpoints (
  session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  state      TEXT NOT NULL,              -- JSON; latest wins
  updated_at INTEGER NOT NULL
);
`;
