import type { Db } from '../store/db';
import { getSession } from '../store/sessions';
import { contextExists, supportingSessionIds } from '../store/contexts';
import type { FactRow } from '../store/facts';
import { SCOPES, USER_SCOPE_KINDS, type FactKind, type Scope } from '../../shared/domain';
import type { ScopeRef } from '../../shared/schemas';
import { invalid, notFound } from '../../shared/errors';
import { ownerOf, scopesFor } from './scope';
import { normalizeWorkspacePath } from './workspace-path';

/**
 * Where a person may put a fact, by the scope contract: user scope only for preferences and
 * profile, and otherwise only a scope every session that supports the fact can see (so no
 * supporting session's evidence points at a fact outside its own context).
 */

const ORDER: Record<Scope, number> = { session: 0, folder: 1, workspace: 2, project: 3, user: 4 };
const refKey = (r: ScopeRef) => `${r.scope}\u0000${r.key}`;

const userAllowed = (kind: FactKind) => USER_SCOPE_KINDS.includes(kind);

/** The scopes a fact may move to (its current one always included), most specific first. */
export function scopeChoices(db: Db, row: Pick<FactRow, 'seq' | 'scope' | 'scope_key'>, kind: FactKind): ScopeRef[] {
  let shared = null as Map<string, ScopeRef> | null;
  for (const id of supportingSessionIds(db, row.seq)) {
    const session = getSession(db, id);
    if (!session) continue;
    const writable = scopesFor(db, session).writable;
    const refs = (Object.entries(writable) as [Scope, string][])
      .filter(([s]) => s !== 'user')
      .map(([scope, key]) => ({ scope, key }));
    const next = new Map(refs.map((r) => [refKey(r), r]));
    shared = shared ? new Map([...shared.entries()].filter(([k]) => next.has(k))) : next;
    if (shared.size === 0) break;
  }
  const choices = new Map(shared ?? []);
  choices.set(refKey({ scope: row.scope, key: row.scope_key }), { scope: row.scope, key: row.scope_key });
  if (userAllowed(kind)) choices.set(refKey({ scope: 'user', key: '' }), { scope: 'user', key: '' });
  else choices.delete(refKey({ scope: 'user', key: '' }));
  return [...choices.values()].sort((a, b) => ORDER[a.scope] - ORDER[b.scope] || (a.key < b.key ? -1 : 1));
}

/** The target of an edit: checked against the choices; the key may be left out when the type has one. */
export function editTarget(
  db: Db,
  row: FactRow,
  kind: FactKind,
  scope: Scope | undefined,
  scopeKey: string | undefined,
): ScopeRef | undefined {
  if (scope === undefined) {
    if (scopeKey !== undefined) throw invalid('scopeKey', 'needs scope as well');
    if (row.scope === 'user' && !userAllowed(kind)) {
      throw invalid('kind', `a ${kind} cannot be user-global; move it to a project, workspace, folder or session`);
    }
    return undefined;
  }
  if (scope === 'user' && !userAllowed(kind)) {
    throw invalid('scope', 'user scope is only for preferences and profile facts');
  }
  const choices = scopeChoices(db, row, kind).filter((c) => c.scope === scope);
  const key = scope === 'workspace' && scopeKey ? normalizeWorkspacePath(scopeKey) : scopeKey;
  const chosen =
    key === undefined ? (choices.length === 1 ? choices[0] : undefined) : choices.find((c) => c.key === key);
  if (chosen) return chosen;
  if (key === undefined && choices.length > 1) throw invalid('scopeKey', `${scope} has several choices; name one`);
  throw invalid(
    'scope',
    `${scope}${key ? ` ${key}` : ''} is not available: every session supporting this fact must see it`,
  );
}

/**
 * The context of a fact added by hand: an existing project, workspace or folder, a session
 * (its owner's session scope, with the session as evidence), or user scope for preferences and
 * profile.
 */
export function createContext(
  db: Db,
  scope: Scope,
  rawKey: string,
  kind: FactKind,
): { scope: Scope; key: string; sessionId: string | null } {
  if (!SCOPES.includes(scope)) throw invalid('scope', 'is not a scope');
  if (scope === 'user') {
    if (!userAllowed(kind)) throw invalid('scope', 'user scope is only for preferences and profile facts');
    if (rawKey) throw invalid('scopeKey', 'user scope has no key; leave it empty');
    return { scope, key: '', sessionId: null };
  }
  if (!rawKey) throw invalid('scopeKey', `must name the ${scope}`);
  if (scope === 'session') {
    const session = getSession(db, rawKey);
    if (!session) throw notFound('session', rawKey, 'scopeKey');
    return { scope, key: ownerOf(db, session).id, sessionId: session.id };
  }
  const key = scope === 'workspace' ? normalizeWorkspacePath(rawKey) : rawKey;
  if (!contextExists(db, scope, key)) {
    throw invalid('scopeKey', `no session or fact uses ${scope} ${key}; pick an existing one`);
  }
  return { scope, key, sessionId: null };
}
