/**
 * Dream asks "what is the newest visible message of this session?" for every top-level session
 * on every run. A partial index over exactly the visible rows answers that with one index probe
 * per session instead of a scan of the session's messages.
 */
export const up = `
CREATE INDEX session_messages_dream_visible ON session_messages(session_id, created_at)
  WHERE role <> 'system' AND hidden = 0 AND side_chat_context = 0 AND system_generated = 0 AND compacted = 0;
`;
