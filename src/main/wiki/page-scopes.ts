import type { ScopeRef, SessionRecord } from '../../shared/schemas';
import type { Scope } from '../../shared/domain';
import { parsePage, renderPage } from './front-matter';

/**
 * Scoped content that Dream writes into the wiki carries a `scopes:` front-matter list, e.g.
 * `[project:alpha, session:0193...]`: every scope whose facts or dialogue the page holds. The
 * wiki itself stays a person's inspection surface, but memory_search only returns a page to a
 * session that can see every scope listed, so consolidation never becomes a side door from one
 * project into another. Pages without the key (written by hand, legacy pages) are unscoped.
 */
export const SCOPES_KEY = 'scopes';

export const scopeLabel = (scope: Scope, key: string): string => (scope === 'user' ? 'user' : `${scope}:${key}`);

/** Every scope a top-level session's content may belong to: its own, its project, workspace, folder. */
export function sessionContextLabels(session: SessionRecord): string[] {
  return [
    scopeLabel('session', session.id),
    ...(session.projectId ? [scopeLabel('project', session.projectId)] : []),
    ...(session.workspace ? [scopeLabel('workspace', session.workspace)] : []),
    ...(session.folderId ? [scopeLabel('folder', session.folderId)] : []),
  ];
}

/** The scope a session's dialogue is shared at (project, else workspace, else folder, else the session). */
export function dialogueLabel(session: SessionRecord): string {
  if (session.projectId) return scopeLabel('project', session.projectId);
  if (session.workspace) return scopeLabel('workspace', session.workspace);
  if (session.folderId) return scopeLabel('folder', session.folderId);
  return scopeLabel('session', session.id);
}

export function pageVisibleTo(pageScopes: readonly string[], visible: readonly ScopeRef[]): boolean {
  if (pageScopes.length === 0) return true;
  const allowed = new Set(visible.map((v) => scopeLabel(v.scope, v.key)));
  return pageScopes.every((s) => allowed.has(s));
}

/** Adds `labels` to a page's scopes list (keeping what `previous` already had), for writes Dream did not compose itself. */
export function stampScopes(content: string, labels: readonly string[], previous: readonly string[] = []): string {
  const page = parsePage(content);
  const merged = [...new Set([...previous, ...page.meta.scopes, ...labels])];
  if (merged.length === 0) return content;
  return renderPage({ ...(page.data ?? {}), [SCOPES_KEY]: merged }, page.body);
}
