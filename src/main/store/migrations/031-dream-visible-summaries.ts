/**
 * Compaction summaries are part of the conversation Dream reads (they replace the compacted rows
 * in the window), although they are synthetic rows. Rebuilds migration 030's partial index with
 * the widened visibility rule, so the pending-session probe keeps using it.
 */
export const up = `
DROP INDEX IF EXISTS session_messages_dream_visible;
CREATE INDEX session_messages_dream_visible ON session_messages(session_id, created_at)
  WHERE role <> 'system' AND hidden = 0 AND side_chat_context = 0 AND compacted = 0
    AND (system_generated = 0 OR is_summary = 1);
`;
