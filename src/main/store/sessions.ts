import type { Db } from './db';
import type { SessionKind } from '../../shared/domain';
import type { SessionRecord } from '../../shared/schemas';

interface SessionRow {
  id: string;
  kind: SessionKind;
  parent_session_id: string | null;
  project_id: string | null;
  workspace: string | null;
  folder_id: string | null;
  agent_name: string | null;
  title: string | null;
  created_at: number;
  updated_at: number;
}

export const toSession = (r: SessionRow): SessionRecord => ({
  id: r.id,
  kind: r.kind,
  parentSessionId: r.parent_session_id,
  projectId: r.project_id,
  workspace: r.workspace,
  folderId: r.folder_id,
  agentName: r.agent_name,
  title: r.title,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function getSession(db: Db, id: string): SessionRecord | undefined {
  const row = db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as SessionRow | undefined;
  return row && toSession(row);
}

const PLACEMENT_CACHE_SIZE = 2048;
const placements = new WeakMap<Db, Map<string, SessionRecord>>();

/**
 * A session read for where it sits (kind, parent, project, workspace, folder), which never
 * changes once it is created: kept per connection, so placing the sessions behind a search's
 * citations costs no query after the first time. Only for sessions reached through a row that
 * cites them: one deleted since may still be returned (and its title and updated_at may be old).
 */
export function sessionPlacement(db: Db, id: string): SessionRecord | undefined {
  let cache = placements.get(db);
  if (!cache) placements.set(db, (cache = new Map()));
  const known = cache.get(id);
  if (known) return known;
  const session = getSession(db, id);
  if (session) {
    if (cache.size >= PLACEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(id, session);
  }
  return session;
}

export function insertSession(db: Db, s: SessionRecord): void {
  db.prepare(
    `INSERT INTO sessions (id, kind, parent_session_id, project_id, workspace, folder_id, agent_name, title, created_at, updated_at)
     VALUES (@id, @kind, @parentSessionId, @projectId, @workspace, @folderId, @agentName, @title, @createdAt, @updatedAt)`,
  ).run(s);
}

export interface SessionListFilter {
  kind?: SessionKind;
  projectId?: string;
  workspace?: string;
  folderId?: string;
  /** Keyset cursor: sessions created strictly before this (createdAt, id). */
  before?: { createdAt: number; id: string };
  limit: number;
}

/** Direct children (team members, side chats), oldest first. */
export function childSessions(db: Db, parentId: string): SessionRecord[] {
  const rows = db
    .prepare('SELECT * FROM sessions WHERE parent_session_id = ? ORDER BY created_at')
    .all(parentId) as SessionRow[];
  return rows.map(toSession);
}

/** Messages stored per session, for a page of sessions in one query; a session with none is 0. */
export function messageCounts(db: Db, sessionIds: readonly string[]): Map<string, number> {
  const counts = new Map(sessionIds.map((id) => [id, 0]));
  if (sessionIds.length === 0) return counts;
  const rows = db
    .prepare(
      `SELECT session_id, count(*) AS n FROM session_messages
       WHERE session_id IN (SELECT value FROM json_each(?)) GROUP BY session_id`,
    )
    .all(JSON.stringify(sessionIds)) as { session_id: string; n: number }[];
  for (const r of rows) counts.set(r.session_id, r.n);
  return counts;
}

/** Distinct facts the session is evidence for. */
export function sessionFactCount(db: Db, sessionId: string): number {
  const row = db
    .prepare('SELECT count(DISTINCT fact_seq) AS n FROM memory_fact_evidence WHERE session_id = ?')
    .get(sessionId) as { n: number };
  return row.n;
}

export function allSessionIds(db: Db): string[] {
  return (db.prepare('SELECT id FROM sessions').all() as { id: string }[]).map((r) => r.id);
}

/** The last 8 hex digits of every session id, lower-cased: how an older version named source pages. */
export function sessionIdTails(db: Db): string[] {
  const rows = db.prepare("SELECT lower(substr(replace(id, '-', ''), -8)) AS s FROM sessions").all() as { s: string }[];
  return rows.map((r) => r.s);
}

/**
 * Existence checks prepared once for a pass over many ids (wiki lint). `loose` also matches the
 * lower-cased id, as a wiki link may spell it.
 */
export function idExistence(db: Db) {
  const session = db.prepare('SELECT 1 FROM sessions WHERE id = ?');
  const sessionLoose = db.prepare('SELECT 1 FROM sessions WHERE id IN (?, lower(?))');
  const factLoose = db.prepare('SELECT 1 FROM memory_facts WHERE id IN (?, lower(?))');
  return {
    session: (id: string) => session.get(id) !== undefined,
    sessionLoose: (id: string) => sessionLoose.get(id, id) !== undefined,
    factLoose: (id: string) => factLoose.get(id, id) !== undefined,
  };
}

/** Newest first, keyset-paginated. */
export function listSessions(db: Db, f: SessionListFilter): SessionRecord[] {
  const where: string[] = [];
  const params: Record<string, unknown> = { limit: f.limit };
  const equalities = { kind: 'kind', projectId: 'project_id', workspace: 'workspace', folderId: 'folder_id' } as const;
  for (const [field, column] of Object.entries(equalities) as [keyof typeof equalities, string][]) {
    if (!f[field]) continue;
    where.push(`${column} = @${field}`);
    params[field] = f[field];
  }
  if (f.before) {
    where.push('(created_at, id) < (@beforeAt, @beforeId)');
    params.beforeAt = f.before.createdAt;
    params.beforeId = f.before.id;
  }
  const sql = `SELECT * FROM sessions ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
               ORDER BY created_at DESC, id DESC LIMIT @limit`;
  return (db.prepare(sql).all(params) as SessionRow[]).map(toSession);
}

/** The session and every session below it (team members, side chats), transitively. */
export function sessionClosure(db: Db, id: string): string[] {
  return (
    db
      .prepare(
        `WITH RECURSIVE closure(id) AS (
           SELECT id FROM sessions WHERE id = ?
           UNION SELECT s.id FROM sessions s JOIN closure c ON s.parent_session_id = c.id)
         SELECT id FROM closure`,
      )
      .all(id) as { id: string }[]
  ).map((r) => r.id);
}
