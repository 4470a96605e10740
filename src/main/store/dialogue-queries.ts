import type { Db } from './db';
import type { SessionRecord } from '../../shared/schemas';
import { jsonRows, prepared } from './prepared';

/**
 * The reads behind memory_search over dialogue: the indexed turns a candidate lookup found,
 * a turn's neighbours in its session, and the sessions the search may read (for collection
 * statistics). Read-only; every query is served by an index.
 */

/** What is indexed as dialogue evidence (migration 021), checked again on every read. */
const ELIGIBLE = `m.role IN ('user', 'assistant') AND m.hidden = 0 AND m.side_chat_context = 0
  AND m.tool_call_round = 0 AND m.compacted = 0 AND (m.system_generated = 0 OR m.is_summary = 1)
  AND m.model_context IS NULL`;

export interface DialogueTurn {
  /** The dialogue index rowid (0 for a neighbour read straight from session_messages). */
  rowid: number;
  id: string;
  session_id: string;
  seq: number;
  role: string;
  content: string;
  created_at: number;
  title: string | null;
  agent_name: string | null;
  /** The message's rowid in session_messages (what an opaque citation ref names). */
  message_rowid: number;
  /** The session's context: which scope a hit is cited under. */
  project_id: string | null;
  workspace: string | null;
  folder_id: string | null;
}

/** A turn as read, before its session's columns are added: rowid, message rowid, id, session, seq, role, content, created_at. */
type TurnRow = [number, number, string, string, number, string, string, number];
const TURN_COLUMNS = 'm.rowid, m.id, m.session_id, m.seq, m.role, m.content, m.created_at';

type SessionColumns = Pick<DialogueTurn, 'title' | 'agent_name' | 'project_id' | 'workspace' | 'folder_id'>;

/**
 * The turns of rows read as arrays, with their sessions' columns read once per session (a
 * search's candidates come from a handful of sessions): neither a session lookup nor an object
 * built by the driver per row.
 */
function withSessions(db: Db, rows: readonly TurnRow[], known?: ReadonlyMap<string, SessionColumns>): DialogueTurn[] {
  const sessions = known ?? sessionColumns(db, [...new Set(rows.map((r) => r[3]))]);
  const turns: DialogueTurn[] = [];
  for (const [rowid, messageRowid, id, sessionId, seq, role, content, createdAt] of rows) {
    const s = sessions.get(sessionId);
    if (!s) continue; // the session was deleted between the two reads
    turns.push({
      rowid,
      id,
      session_id: sessionId,
      seq,
      role,
      content,
      created_at: createdAt,
      title: s.title,
      agent_name: s.agent_name,
      message_rowid: messageRowid,
      project_id: s.project_id,
      workspace: s.workspace,
      folder_id: s.folder_id,
    });
  }
  return turns;
}

function sessionColumns(db: Db, ids: readonly string[]): Map<string, SessionColumns> {
  return new Map(
    (
      prepared(
        db,
        `SELECT id, title, agent_name, project_id, workspace, folder_id FROM sessions
         WHERE id IN (SELECT value FROM json_each(?))`,
      ).all(JSON.stringify(ids)) as (SessionColumns & { id: string })[]
    ).map((s) => [s.id, s]),
  );
}

/** The eligible turns behind a set of dialogue index rowids. */
export function turnsByRowid(db: Db, rowids: readonly number[]): DialogueTurn[] {
  if (rowids.length === 0) return [];
  const rows = jsonRows<TurnRow>(
    db,
    `r.rowid, ${TURN_COLUMNS}`,
    `FROM dialogue_index_rows r
       JOIN session_messages m ON m.id = r.message_id
       WHERE r.rowid IN (SELECT value FROM json_each(?)) AND ${ELIGIBLE}`,
    JSON.stringify(rowids),
  );
  return withSessions(db, rows);
}

export interface TurnContext {
  previous: DialogueTurn | null;
  next: DialogueTurn | null;
}

/**
 * Each turn's nearest eligible turn before and after it in the same session (tool rows and
 * tool-call rounds in between are skipped). Two index probes per turn, each stopping at the first
 * eligible row (cheaper than a batched scan, which must read every row within a fixed reach),
 * all of them in one statement, and then the neighbours' rows in a second one (their sessions'
 * columns are their turns').
 */
export function neighbourTurns(db: Db, turns: readonly DialogueTurn[]): Map<string, TurnContext> {
  const out = new Map<string, TurnContext>();
  if (turns.length === 0) return out;
  const probe = (op: '<' | '>', order: 'DESC' | 'ASC') =>
    `(SELECT m.rowid FROM session_messages m
       WHERE m.session_id = t.value ->> 0 AND m.seq ${op} t.value ->> 1 AND ${ELIGIBLE}
       ORDER BY m.seq ${order} LIMIT 1)`;
  // Each turn's index in `turns`, then its previous and next neighbour's rowid.
  const sides = jsonRows<[number, number | null, number | null]>(
    db,
    `t.key, ${probe('<', 'DESC')}, ${probe('>', 'ASC')}`,
    'FROM json_each(?) t',
    JSON.stringify(turns.map((t) => [t.session_id, t.seq])),
  );
  const wanted = [...new Set(sides.flatMap(([, previous, next]) => [previous, next]).filter((n) => n !== null))];
  const rows = jsonRows<TurnRow>(
    db,
    `0, ${TURN_COLUMNS}`,
    'FROM session_messages m WHERE m.rowid IN (SELECT value FROM json_each(?))',
    JSON.stringify(wanted),
  );
  // A neighbour is in its turn's session: the session's columns are the turn's.
  const known = new Map<string, SessionColumns>(turns.map((t) => [t.session_id, t]));
  const byRowid = new Map(withSessions(db, rows, known).map((t) => [t.message_rowid, t]));
  // Each neighbour is its own object, as when every probe read its row: callers key maps by object.
  // A row deleted between the two statements is no neighbour.
  const turnAt = (rowid: number | null) => {
    const row = rowid === null ? undefined : byRowid.get(rowid);
    return row ? { ...row } : null;
  };
  for (const [i, previous, next] of sides) out.set(turns[i]!.id, { previous: turnAt(previous), next: turnAt(next) });
  return out;
}

export interface ScopeSession {
  id: string;
  created_at: number;
  /** Messages written in the session (its last seq): the size of its share of the collection. */
  messages: number;
}

/**
 * The sessions whose dialogue a search from `owner` may read: the owner's team, plus the sessions
 * of its project, else of its workspace, else of its Work folder (the same rule as the index tags).
 * Each session's size comes from its last seq, one index probe, so this costs a probe per session
 * rather than a scan of the messages; a project of thousands of sessions still made this most of
 * a dialogue search, so the answer is kept per connection until the store changes.
 */
export function scopeSessions(db: Db, owner: SessionRecord): readonly ScopeSession[] {
  // Another connection's commit moves data_version, this connection's own writes total_changes.
  const { v, c } = prepared(
    db,
    'SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c',
  ).get() as {
    v: number;
    c: number;
  };
  const version = `${v}:${c}`;
  let cache = scopeCache.get(db);
  if (cache?.version !== version) scopeCache.set(db, (cache = { version, byOwner: new Map() }));
  let sessions = cache.byOwner.get(owner.id);
  if (!sessions) {
    if (cache.byOwner.size >= SCOPE_CACHE_OWNERS) cache.byOwner.clear();
    cache.byOwner.set(owner.id, (sessions = readScopeSessions(db, owner)));
  }
  return sessions;
}

const SCOPE_CACHE_OWNERS = 64;
const scopeCache = new WeakMap<Db, { version: string; byOwner: Map<string, readonly ScopeSession[]> }>();

function readScopeSessions(db: Db, owner: SessionRecord): ScopeSession[] {
  const cols = `s.id, s.created_at, COALESCE((SELECT max(seq) FROM session_messages WHERE session_id = s.id), 0) AS messages`;
  const team = `SELECT ${cols} FROM sessions s WHERE s.id = @owner
    UNION SELECT ${cols} FROM sessions s WHERE s.parent_session_id = @owner`;
  const [column, key] = owner.projectId
    ? ['project_id', owner.projectId]
    : owner.workspace
      ? ['workspace', owner.workspace]
      : owner.folderId
        ? ['folder_id', owner.folderId]
        : [null, null];
  if (column === null) return prepared(db, team).all({ owner: owner.id }) as ScopeSession[];
  return prepared(db, `${team} UNION SELECT ${cols} FROM sessions s WHERE s.${column} = @key`).all({
    owner: owner.id,
    key,
  }) as ScopeSession[];
}
