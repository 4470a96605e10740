import type { Db } from './db';
import { toSession } from './sessions';
import type { SessionRecord } from '../../shared/schemas';
import type { MessageRole } from '../../shared/domain';

/** Where to look for recent sessions: each list is one indexed lookup; empty lists look nowhere. */
export interface SessionPlaces {
  projects: readonly string[];
  /** Workspace paths: the path itself and every folder below it. */
  workspaces: readonly string[];
  folders: readonly string[];
  ids: readonly string[];
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** `w` and the paths below it: '/' sorts just before '0', so the range is one index walk. */
function workspaceRange(w: string): [string, string] {
  const prefix = w.endsWith('/') ? w : `${w}/`;
  return [prefix, `${prefix.slice(0, -1)}0`];
}

/**
 * The most recently active sessions in any of the places, newest activity first, at most `scan`
 * per place (the caller filters further and keeps fewer).
 */
export function recentSessionsIn(db: Db, places: SessionPlaces, scan: number): SessionRecord[] {
  const byId = new Map<string, SessionRecord>();
  const take = (sql: string, params: unknown[]) => {
    for (const row of db
      .prepare(`SELECT * FROM sessions WHERE ${sql} ORDER BY updated_at DESC LIMIT ?`)
      .all(...params, scan))
      byId.set((row as { id: string }).id, toSession(row as Parameters<typeof toSession>[0]));
  };
  if (places.projects.length) take(`project_id IN (${marks(places.projects.length)})`, [...places.projects]);
  if (places.folders.length) take(`folder_id IN (${marks(places.folders.length)})`, [...places.folders]);
  if (places.ids.length) {
    take(`id IN (${marks(places.ids.length)}) OR parent_session_id IN (${marks(places.ids.length)})`, [
      ...places.ids,
      ...places.ids,
    ]);
  }
  for (const w of places.workspaces) {
    const [low, high] = workspaceRange(w);
    take('(workspace = ? OR (workspace > ? AND workspace < ?))', [w, low, high]);
  }
  return [...byId.values()].sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1));
}

/** The most recently active sessions of the whole home. */
export function recentSessions(db: Db, limit: number): SessionRecord[] {
  return (
    db.prepare('SELECT * FROM sessions ORDER BY updated_at DESC, id DESC LIMIT ?').all(limit) as Parameters<
      typeof toSession
    >[0][]
  ).map(toSession);
}

export interface SessionActivity {
  messageCount: number;
  lastMessage: { role: MessageRole; at: number; content: string } | null;
}

export function sessionActivity(db: Db, sessionId: string): SessionActivity {
  const { n } = db.prepare('SELECT count(*) AS n FROM session_messages WHERE session_id = ?').get(sessionId) as {
    n: number;
  };
  const last = db
    .prepare(
      `SELECT role, created_at AS at, substr(content, 1, 400) AS content FROM session_messages
       WHERE session_id = ? AND hidden = 0 ORDER BY seq DESC LIMIT 1`,
    )
    .get(sessionId) as { role: MessageRole; at: number; content: string } | undefined;
  return { messageCount: n, lastMessage: last ?? null };
}
