/**
 * Imports index their messages for dialogue search themselves, in bulk. The insert trigger of
 * migration 21 gives every new message the next lower rowid, one statement at a time; FTS5
 * flushes its pending terms whenever a rowid goes down within a transaction (and at every
 * savepoint a trigger opens), so a transaction of a hundred imported messages paid a hundred
 * index flushes. While dialogue_index_deferred holds its row (only ever inside an import's own
 * write transaction, so no other connection sees it) the trigger stands aside; the importer then
 * writes the same index rows after the messages, at ascending rowids (the newest message still
 * gets the smallest one, as the trigger would give it). The trigger is otherwise unchanged.
 */
const eligible = (m: string) =>
  `${m}.role IN ('user', 'assistant') AND ${m}.hidden = 0 AND ${m}.side_chat_context = 0
   AND ${m}.tool_call_round = 0 AND ${m}.compacted = 0 AND (${m}.system_generated = 0 OR ${m}.is_summary = 1)`;

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
CREATE TABLE dialogue_index_deferred (only_row INTEGER PRIMARY KEY CHECK (only_row = 1));

DROP TRIGGER session_messages_index_insert;
CREATE TRIGGER session_messages_index_insert AFTER INSERT ON session_messages
WHEN ${eligible('new')} AND NOT EXISTS (SELECT 1 FROM dialogue_index_deferred)
BEGIN
  INSERT INTO dialogue_index_rows (rowid, message_id)
    VALUES ((SELECT COALESCE(MIN(rowid), ${TOP}) - 1 FROM dialogue_index_rows), new.id);
  INSERT INTO session_messages_fts (rowid, tags, content)
    VALUES ((SELECT rowid FROM dialogue_index_rows WHERE message_id = new.id), ${tagsOf('new.session_id')}, new.content);
END;
`;

/** The first rowid below every dialogue index row (migration 21's starting point when empty). */
export const DIALOGUE_TOP_ROWID = Number(TOP);
