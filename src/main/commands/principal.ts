import path from 'node:path';
import type { Db } from '../store/db';
import { getSession, sessionPlacement } from '../store/sessions';
import { ownerOf } from '../memory/scope';
import type { SessionRecord } from '../../shared/schemas';

/**
 * Who is calling a command. The person who owns the data home (the desktop window over IPC, the
 * CLI, the HTTP door with the token) is the owner and reaches everything. An agent connection
 * (one MCP session) is an agent: it reaches only the sessions of the context it was started for
 * and the sessions it created itself, and only the commands an agent needs.
 */
export type Principal = OwnerPrincipal | AgentPrincipal;

export interface OwnerPrincipal {
  readonly kind: 'owner';
}

export const OWNER: OwnerPrincipal = Object.freeze({ kind: 'owner' });

/**
 * The context an agent connection declares: launch flags (`--project`, `--workspace`, `--folder`)
 * and, when no `--workspace` flag is given, the MCP client's roots as workspaces. Workspaces are
 * normalized paths; a session on a folder inside one of them is inside the context.
 */
export interface AgentContext {
  projects: readonly string[];
  workspaces: readonly string[];
  folders: readonly string[];
}

export const EMPTY_CONTEXT: AgentContext = Object.freeze({ projects: [], workspaces: [], folders: [] });

export class AgentPrincipal {
  readonly kind = 'agent';
  /** Sessions this connection created: it reaches them (and their teams) whatever its context. */
  readonly created = new Set<string>();

  constructor(
    public context: AgentContext = EMPTY_CONTEXT,
    /** Names the connection in logs, never in answers. */
    readonly label = 'agent',
  ) {}

  get declaresContext(): boolean {
    const c = this.context;
    return c.projects.length + c.workspaces.length + c.folders.length > 0;
  }
}

export const isAgent = (p: Principal): p is AgentPrincipal => p.kind === 'agent';

/** `inner` is `outer` or a folder below it (both already normalized). */
export function isInsideFolder(inner: string, outer: string): boolean {
  if (inner === outer) return true;
  const rel = path.relative(outer, inner);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * A top-level session lies in a declared context when it has at least one of project, workspace
 * and folder, and every one it has is declared. A session with none of them belongs to no
 * context (only its creator reaches it), and a session with an undeclared workspace or folder is
 * outside: it would see that workspace's or folder's memory.
 */
export function withinContext(
  s: Pick<SessionRecord, 'projectId' | 'workspace' | 'folderId'>,
  c: AgentContext,
): boolean {
  if (s.projectId === null && s.workspace === null && s.folderId === null) return false;
  if (s.projectId !== null && !c.projects.includes(s.projectId)) return false;
  if (s.workspace !== null && !c.workspaces.some((w) => isInsideFolder(s.workspace!, w))) return false;
  if (s.folderId !== null && !c.folders.includes(s.folderId)) return false;
  return true;
}

/**
 * Whether the principal may act on a session: the owner always; an agent when the session's
 * team (its top-level owner) lies in its context or was created by it, or when it created the
 * session itself.
 */
export function canReachSession(db: Db, principal: Principal, sessionId: string): boolean {
  if (!isAgent(principal)) return true;
  const session = getSession(db, sessionId);
  if (!session) return false;
  return reaches(db, principal, session);
}

/**
 * canReachSession for a session named by a row in an answer (a citation): its placement and its
 * team's come from the per-connection placement cache, since such a session exists and where it
 * sits never changes.
 */
export function canReachCitedSession(db: Db, principal: Principal, sessionId: string): boolean {
  if (!isAgent(principal)) return true;
  const session = sessionPlacement(db, sessionId);
  return session !== undefined && reaches(db, principal, session, sessionPlacement);
}

export function reaches(
  db: Db,
  principal: AgentPrincipal,
  session: SessionRecord,
  lookup: (db: Db, id: string) => SessionRecord | undefined = getSession,
): boolean {
  if (principal.created.has(session.id)) return true;
  const owner = ownerOf(db, session, lookup);
  return principal.created.has(owner.id) || withinContext(owner, principal.context);
}

/**
 * The commands an agent connection may call: its own sessions' turns, recall, search, facts,
 * forget (a fact, or a session after a dry run), the wiki pages and recent activity of its
 * context, and Dream. Everything else (browsing every session, deleting sessions without the dry
 * run, writing the wiki, resolving citations) is the owner's.
 */
export const AGENT_COMMANDS: ReadonlySet<string> = new Set([
  'sessions.create',
  'turns.begin',
  'turns.complete',
  'turns.compact',
  'turns.checkpoint',
  'memory.recall',
  'memory.search',
  'memory.facts',
  'facts.add',
  'facts.addBatch',
  'memory.forget',
  'memory.forgetSession',
  'memory.wiki.list',
  'memory.wiki.read',
  'memory.activity',
  'scopes.resolve',
  'extraction.status',
  'dream.run',
  'dream.status',
]);
