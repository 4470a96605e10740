import type { Db } from '../store/db';
import { getSession } from '../store/sessions';
import {
  FALLBACK_SCOPES,
  USER_SCOPE_KINDS,
  type CoercedScope,
  type CoercionReason,
  type FactKind,
  type Scope,
} from '../../shared/domain';
import type { ScopeRef, SessionRecord } from '../../shared/schemas';
import { notFound } from '../../shared/errors';
import { WORK_ROLE, isWorkContent } from './extraction/content';

/**
 * What one session may see and write.
 *
 * | scope     | key                  | visible to                                         |
 * | user      | ''                   | every session                                      |
 * | project   | owner's project id   | sessions of that Coding project                    |
 * | workspace | owner's workspace    | sessions on that normalized workspace path         |
 * | folder    | owner's folder id    | sessions in that Work folder                       |
 * | session   | owner's session id   | the owner (top-level) session and its team context |
 *
 * The owner is the top-level session a team member or side chat belongs to; they see and write
 * through it, never through their own row, so the whole team shares one context.
 */
export interface SessionScopes {
  session: SessionRecord;
  owner: SessionRecord;
  /** Every scope visible to the session, most specific first. */
  visible: ScopeRef[];
  /** The one key per scope type that a write from this session lands on. */
  writable: Partial<Record<Scope, string>>;
}

export function ownerOf(
  db: Db,
  session: SessionRecord,
  lookup: (db: Db, id: string) => SessionRecord | undefined = getSession,
): SessionRecord {
  let current = session;
  // Walk to the top: a side chat of a team member still belongs to the lead's context.
  for (let depth = 0; current.parentSessionId && depth < 32; depth++) {
    const parent = lookup(db, current.parentSessionId);
    if (!parent) break;
    current = parent;
  }
  return current;
}

export function resolveScopes(db: Db, sessionId: string): SessionScopes {
  const session = getSession(db, sessionId);
  if (!session) throw notFound('session', sessionId, 'sessionId');
  return scopesFor(db, session);
}

export function scopesFor(db: Db, session: SessionRecord): SessionScopes {
  const owner = ownerOf(db, session);
  const writable: Partial<Record<Scope, string>> = { user: '', session: owner.id };
  if (owner.projectId) writable.project = owner.projectId;
  if (owner.workspace) writable.workspace = owner.workspace;
  if (owner.folderId) writable.folder = owner.folderId;
  const visible: ScopeRef[] = [{ scope: 'session', key: owner.id }];
  if (session.id !== owner.id) visible.unshift({ scope: 'session', key: session.id });
  for (const s of ['folder', 'workspace', 'project'] as const) {
    const key = writable[s];
    if (key !== undefined) visible.push({ scope: s, key });
  }
  visible.push({ scope: 'user', key: '' });
  return { session, owner, visible, writable };
}

/**
 * Where a fact asked for at `requested` is stored. User scope is only for explicit durable
 * preferences and profile facts about the person; a technical kind asked for at user scope, an
 * extracted preference (`text` given) about a codebase, tool, project or workflow ("Never use
 * default exports in this codebase"), or any scope the session does not have, falls back to the first
 * available of project, workspace, folder, session (session always exists, so nothing lands at
 * user scope by accident).
 */
export function coerceScope(scopes: SessionScopes, requested: Scope, kind: FactKind, text?: string): CoercedScope {
  if (requested === 'user') {
    if (!USER_SCOPE_KINDS.includes(kind)) return fallback(scopes, requested, 'technical-kind-not-user');
    const workRole = kind === 'profile' && text !== undefined && WORK_ROLE.test(text);
    if (text !== undefined && !workRole && isWorkContent(text)) {
      return fallback(scopes, requested, 'work-content-not-user');
    }
    return { scope: 'user', key: '', coercion: null };
  }
  const key = scopes.writable[requested];
  if (key !== undefined) return { scope: requested, key, coercion: null };
  return fallback(scopes, requested, 'scope-unavailable');
}

function fallback(scopes: SessionScopes, requested: Scope, reason: CoercionReason): CoercedScope {
  for (const s of FALLBACK_SCOPES) {
    const key = scopes.writable[s];
    if (key !== undefined) return { scope: s, key, coercion: { requested, reason } };
  }
  /* c8 ignore next */
  throw new Error('unreachable: session scope is always writable');
}

/** SQL fragment + params restricting memory_facts to the visible scopes. */
export function visibleScopeFilter(visible: ScopeRef[], alias = 'f'): { sql: string; params: string[] } {
  const sql = visible.map(() => `(${alias}.scope = ? AND ${alias}.scope_key = ?)`).join(' OR ');
  return { sql: `(${sql})`, params: visible.flatMap((v) => [v.scope, v.key]) };
}
