import type { Engine } from '../engine';
import { resolveScopes } from '../memory/scope';
import { pageVisibleTo } from '../wiki/page-scopes';
import { SECTIONS } from '../wiki/layout';
import { canReachSession, isAgent, isInsideFolder, type AgentPrincipal, type Principal } from './principal';

/**
 * What a caller may see when it does not name a session: the owner sees everything; an agent
 * connection sees what lies in its declared context (its projects, its workspaces and the
 * folders below them, its Work folders), the sessions it may reach, and user scope.
 */

/** Whether one scope label (`project:alpha`, `session:…`, `user`) lies within the agent's reach. */
function agentSees(engine: Engine, principal: AgentPrincipal, label: string): boolean {
  if (label === 'user') return true;
  const colon = label.indexOf(':');
  const [kind, key] = [label.slice(0, colon), label.slice(colon + 1)];
  const c = principal.context;
  switch (kind) {
    case 'project':
      return c.projects.includes(key);
    case 'workspace':
      return c.workspaces.some((w) => isInsideFolder(key, w));
    case 'folder':
      return c.folders.includes(key);
    case 'session':
      return canReachSession(engine.db, principal, key);
    default:
      return false;
  }
}

export type PageFilter = (pageScopes: readonly string[]) => boolean;

/**
 * Which pages the caller may read, judged by a page's `scopes` front matter (a page without it is
 * unscoped and readable by all, as memory_search treats it). With a session: exactly the pages
 * memory_search returns to that session. Without: every scope on the page must lie in the
 * caller's reach.
 */
export function pageFilterFor(engine: Engine, principal: Principal, sessionId: string | undefined): PageFilter {
  if (sessionId !== undefined) {
    const { visible } = resolveScopes(engine.db, sessionId);
    return (scopes) => pageVisibleTo(scopes, visible);
  }
  if (!isAgent(principal)) return () => true;
  return (scopes) => scopes.every((label) => agentSees(engine, principal, label));
}

/** The pages memory_search reads: USER.md and the section folders (never INDEX.md, LOG.md or LINT.md). */
export function readablePagePaths(engine: Engine): string[] {
  const paths = engine.wiki.exists('USER.md') ? ['USER.md'] : [];
  for (const section of SECTIONS) for (const name of engine.wiki.listSection(section)) paths.push(`${section}/${name}`);
  return paths;
}

export const isReadablePagePath = (path: string): boolean =>
  path === 'USER.md' || SECTIONS.some((s) => path.startsWith(`${s}/`) && !path.slice(s.length + 1).includes('/'));
