/** Dream's own agent name: its sessions (if any are ever recorded) never feed Dream again. */
export const DREAM_AGENT_NAME = 'dream';

/**
 * The rows Dream reads and watermarks: real conversation only. System rows, hidden directives,
 * recall blocks and other rows the program wrote itself (they are not what anyone said),
 * side-chat copies of another session's context, and rows replaced by a compaction summary are
 * left out; the summary itself is kept.
 * Matches the partial index of migration 031 so SQLite can use it.
 */
export const DREAM_VISIBLE_SQL =
  "role <> 'system' AND hidden = 0 AND side_chat_context = 0 AND compacted = 0 AND (system_generated = 0 OR is_summary = 1)";

/**
 * Top-level sessions that are not Dream's own. A session with no agent name is not Dream's, so
 * it is eligible (in SQL, `NULL <> 'dream'` is not true, hence the explicit IS NULL).
 */
export const DREAM_SOURCE_SESSION_SQL = `s.kind = 'top-level' AND s.parent_session_id IS NULL AND (s.agent_name IS NULL OR s.agent_name <> '${DREAM_AGENT_NAME}')`;
