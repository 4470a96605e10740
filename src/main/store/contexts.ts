import type { Db } from './db';
import type { Scope } from '../../shared/domain';

/** One context a person can pick: a scope key with its fact count and sessions. */
export interface ContextRow {
  scope: Scope;
  key: string;
  label: string;
  facts: number;
  sessions: number;
  lastActiveAt: number | null;
}

export interface ContextList {
  contexts: ContextRow[];
  totals: Record<string, number>;
}

const SESSION_COLUMN = { project: 'project_id', workspace: 'workspace', folder: 'folder_id' } as const;

/**
 * Projects, workspaces or folders: every key a top-level session names, and every key that
 * still holds facts (whose sessions may be gone), newest activity first.
 */
function groupContexts(db: Db, scope: keyof typeof SESSION_COLUMN, query: string | null, limit: number) {
  const column = SESSION_COLUMN[scope];
  const rows = db
    .prepare(
      `SELECT k AS key, sum(n) AS sessions, max(last) AS last,
              COALESCE((SELECT facts FROM memory_scopes WHERE scope = @scope AND scope_key = k), 0) AS facts,
              count(*) OVER () AS total
       FROM (
         SELECT ${column} AS k, count(*) AS n, max(created_at) AS last FROM sessions
         WHERE kind = 'top-level' AND ${column} IS NOT NULL GROUP BY ${column}
         UNION ALL
         SELECT scope_key, 0, NULL FROM memory_scopes WHERE scope = @scope
       )
       WHERE @query IS NULL OR instr(lower(k), @query) > 0
       GROUP BY k ORDER BY last IS NULL, last DESC, k LIMIT @limit`,
    )
    .all({ scope, query, limit }) as {
    key: string;
    sessions: number;
    last: number | null;
    facts: number;
    total: number;
  }[];
  return {
    total: rows[0]?.total ?? 0,
    contexts: rows.map((r) => ({
      scope,
      key: r.key,
      label: r.key,
      facts: r.facts,
      sessions: r.sessions,
      lastActiveAt: r.last,
    })),
  };
}

/** Top-level sessions (the owners of session scopes), newest first, with their session-scope facts. */
function sessionContexts(db: Db, query: string | null, limit: number) {
  const rows = db
    .prepare(
      `SELECT s.id AS key, s.title, s.created_at AS last, COALESCE(ms.facts, 0) AS facts, count(*) OVER () AS total
       FROM sessions s LEFT JOIN memory_scopes ms ON ms.scope = 'session' AND ms.scope_key = s.id
       WHERE s.kind = 'top-level'
         AND (@query IS NULL OR instr(lower(s.id), @query) > 0 OR instr(lower(COALESCE(s.title, '')), @query) > 0)
       ORDER BY s.created_at DESC, s.id DESC LIMIT @limit`,
    )
    .all({ query, limit }) as { key: string; title: string | null; last: number; facts: number; total: number }[];
  return {
    total: rows[0]?.total ?? 0,
    contexts: rows.map((r) => ({
      scope: 'session' as const,
      key: r.key,
      label: r.title || r.key,
      facts: r.facts,
      sessions: 1,
      lastActiveAt: r.last,
    })),
  };
}

export function listContexts(db: Db, f: { scope?: Scope; query?: string; limit: number }): ContextList {
  const query = f.query ? f.query.toLowerCase() : null;
  const contexts: ContextRow[] = [];
  const totals: Record<string, number> = {};
  const want = (s: Scope) => !f.scope || f.scope === s;
  if (want('user') && (!query || 'user'.includes(query))) {
    const facts = (
      db.prepare("SELECT COALESCE(sum(facts), 0) AS n FROM memory_scopes WHERE scope = 'user'").get() as { n: number }
    ).n;
    const sessions = (db.prepare("SELECT count(*) AS n FROM sessions WHERE kind = 'top-level'").get() as { n: number })
      .n;
    contexts.push({ scope: 'user', key: '', label: 'user (every session)', facts, sessions, lastActiveAt: null });
    totals.user = 1;
  }
  for (const scope of ['project', 'workspace', 'folder'] as const) {
    if (!want(scope)) continue;
    const group = groupContexts(db, scope, query, f.limit);
    contexts.push(...group.contexts);
    totals[scope] = group.total;
  }
  if (want('session')) {
    const group = sessionContexts(db, query, f.limit);
    contexts.push(...group.contexts);
    totals.session = group.total;
  }
  return { contexts, totals };
}

/** A project, workspace or folder that some session names or that holds facts. */
export function contextExists(db: Db, scope: keyof typeof SESSION_COLUMN, key: string): boolean {
  const column = SESSION_COLUMN[scope];
  return (
    db.prepare(`SELECT 1 FROM sessions WHERE ${column} = ? LIMIT 1`).get(key) !== undefined ||
    db.prepare('SELECT 1 FROM memory_scopes WHERE scope = ? AND scope_key = ?').get(scope, key) !== undefined
  );
}

/** The distinct sessions with evidence for a fact, oldest evidence first (at most `limit`). */
export function supportingSessionIds(db: Db, factSeq: number, limit = 500): string[] {
  return (
    db
      .prepare('SELECT session_id FROM memory_fact_evidence WHERE fact_seq = ? ORDER BY created_at, session_id LIMIT ?')
      .all(factSeq, limit) as { session_id: string }[]
  ).map((r) => r.session_id);
}
