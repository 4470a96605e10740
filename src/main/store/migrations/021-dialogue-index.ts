/**
 * The dialogue-evidence index over session_messages.content, for memory_search.
 *
 * Only rows that count as dialogue evidence are indexed at all: user and assistant utterances
 * (and compaction summaries) that are not hidden (side-chat copies, recall rows, directives,
 * reverted tails), not side-chat source copies, not tool-call rounds, not synthetic and not
 * compacted. Every exclusion therefore happens before any candidate limit, and a trigger moves a
 * row out of the index the moment it is compacted or hidden.
 *
 * Each row carries the scope tags of its session's owner (the top-level session): `o` + hex of
 * the owner id (the owner's whole team), and `p`/`w`/`f` + hex of the owner's project, normalized
 * workspace and folder. A search asks for `tags:(allowed tags) AND content:(terms)`, so the scope
 * is applied inside the index, before the limit. Rowids count down (newest first in ascending
 * order), as in migration 020.
 */
const eligible = (m: string) =>
  `${m}.role IN ('user', 'assistant') AND ${m}.hidden = 0 AND ${m}.side_chat_context = 0
   AND ${m}.tool_call_round = 0 AND ${m}.compacted = 0 AND (${m}.system_generated = 0 OR ${m}.is_summary = 1)`;

// The owner is the top-level ancestor (team members and side chats sit at most a few levels down).
const ownerOf = (sessionId: string) => `(SELECT COALESCE(p3.id, p2.id, p1.id, s.id)
   FROM sessions s
   LEFT JOIN sessions p1 ON p1.id = s.parent_session_id
   LEFT JOIN sessions p2 ON p2.id = p1.parent_session_id
   LEFT JOIN sessions p3 ON p3.id = p2.parent_session_id
   WHERE s.id = ${sessionId})`;

const tagsOf = (sessionId: string) => `(SELECT 'o' || hex(o.id)
     || CASE WHEN o.project_id IS NOT NULL THEN ' p' || hex(o.project_id) ELSE '' END
     || CASE WHEN o.workspace IS NOT NULL AND o.workspace <> '' THEN ' w' || hex(o.workspace) ELSE '' END
     || CASE WHEN o.folder_id IS NOT NULL THEN ' f' || hex(o.folder_id) ELSE '' END
   FROM sessions o WHERE o.id = ${ownerOf(sessionId)})`;

const TOP = '1125899906842624';

export const up = `
CREATE TABLE dialogue_index_rows (
  rowid      INTEGER PRIMARY KEY,
  message_id TEXT NOT NULL UNIQUE
);

CREATE VIRTUAL TABLE session_messages_fts USING fts5(
  tags, content,
  content = '', contentless_delete = 1,
  tokenize = "unicode61 remove_diacritics 0"
);

CREATE TRIGGER session_messages_index_insert AFTER INSERT ON session_messages WHEN ${eligible('new')}
BEGIN
  INSERT INTO dialogue_index_rows (rowid, message_id)
    VALUES ((SELECT COALESCE(MIN(rowid), ${TOP}) - 1 FROM dialogue_index_rows), new.id);
  INSERT INTO session_messages_fts (rowid, tags, content)
    VALUES ((SELECT rowid FROM dialogue_index_rows WHERE message_id = new.id), ${tagsOf('new.session_id')}, new.content);
END;

CREATE TRIGGER session_messages_index_delete AFTER DELETE ON session_messages
BEGIN
  DELETE FROM session_messages_fts WHERE rowid = (SELECT rowid FROM dialogue_index_rows WHERE message_id = old.id);
  DELETE FROM dialogue_index_rows WHERE message_id = old.id;
END;

CREATE TRIGGER session_messages_index_update
AFTER UPDATE OF role, content, hidden, side_chat_context, tool_call_round, system_generated, is_summary, compacted
ON session_messages
BEGIN
  DELETE FROM session_messages_fts WHERE rowid = (SELECT rowid FROM dialogue_index_rows WHERE message_id = old.id);
  DELETE FROM dialogue_index_rows WHERE message_id = old.id;
  INSERT INTO dialogue_index_rows (rowid, message_id)
    SELECT (SELECT COALESCE(MIN(rowid), ${TOP}) - 1 FROM dialogue_index_rows), new.id WHERE ${eligible('new')};
  INSERT INTO session_messages_fts (rowid, tags, content)
    SELECT rowid, ${tagsOf('new.session_id')}, new.content FROM dialogue_index_rows WHERE message_id = new.id;
END;

-- Messages written before this migration, oldest first so the newest get the smallest rowids.
INSERT INTO dialogue_index_rows (rowid, message_id)
  SELECT ${TOP} - ROW_NUMBER() OVER (ORDER BY m.created_at, m.seq, m.id), m.id
  FROM session_messages m WHERE ${eligible('m')};
INSERT INTO session_messages_fts (rowid, tags, content)
  SELECT r.rowid, ${tagsOf('m.session_id')}, m.content
  FROM dialogue_index_rows r JOIN session_messages m ON m.id = r.message_id;
`;
