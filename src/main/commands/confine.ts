import type { Engine } from '../engine';
import { normalizeWorkspacePath } from '../memory/workspace-path';
import { CommandError, invalid, notFound } from '../../shared/errors';
import {
  AGENT_COMMANDS,
  canReachCitedSession,
  canReachSession,
  isAgent,
  isInsideFolder,
  type AgentContext,
  type AgentPrincipal,
  type Principal,
} from './principal';

/**
 * The one place where an agent connection is confined, applied by dispatch to every command:
 * before the handler (which commands, which sessions, where a new session may live) and after it
 * (which session ids an answer may name). The owner passes through untouched.
 */

type Input = Record<string, unknown>;

/** Input fields that name an existing session the command would act on. */
const SESSION_FIELDS = ['sessionId', 'parentSessionId'] as const;

export function authorize(engine: Engine, principal: Principal, name: string, input: unknown): unknown {
  if (!isAgent(principal)) return input;
  if (!AGENT_COMMANDS.has(name)) {
    throw new CommandError('forbidden', `command: ${name} is not available to agent connections`, 'command');
  }
  const fields = (input ?? {}) as Input;
  for (const field of SESSION_FIELDS) {
    const id = fields[field];
    // Out of reach answers exactly like a session that does not exist, and changes nothing.
    if (typeof id === 'string' && !canReachSession(engine.db, principal, id)) throw notFound('session', id, field);
  }
  if (name === 'extraction.status' && fields.sessionId === undefined) {
    throw invalid('sessionId', 'is required (an agent connection sees only its own sessions)');
  }
  return name === 'sessions.create' ? placeNewSession(principal, fields) : input;
}

/**
 * A session an agent creates lies inside its declared context: each of project, workspace and
 * folder it gives must be declared, and a missing one defaults to the first declared. A team
 * member or side chat takes its parent's context (the handler enforces that). Agents never pick
 * session ids: an id is a key, and a chosen one could probe for sessions outside the context.
 */
function placeNewSession(principal: AgentPrincipal, input: Input): Input {
  if (input.id !== undefined) throw invalid('id', 'agent connections cannot choose session ids');
  if (input.kind !== undefined && input.kind !== 'top-level') return input;
  const c = principal.context;
  const projectId = pick(input.projectId as string | undefined, c.projects, 'projectId', c, (v, d) => v === d);
  const workspace = pick(
    input.workspace === undefined ? undefined : normalizeWorkspacePath(input.workspace as string),
    c.workspaces,
    'workspace',
    c,
    isInsideFolder,
  );
  const folderId = pick(input.folderId as string | undefined, c.folders, 'folderId', c, (v, d) => v === d);
  return { ...input, projectId, workspace, folderId };
}

function pick(
  given: string | undefined,
  declared: readonly string[],
  field: string,
  context: AgentContext,
  matches: (value: string, declared: string) => boolean,
): string | undefined {
  if (given === undefined) return declared[0];
  if (declared.some((d) => matches(given, d))) return given;
  throw invalid(field, `is outside this connection's context (${describeContext(context)})`);
}

export function describeContext(c: AgentContext): string {
  const parts = [
    ...c.projects.map((p) => `project ${p}`),
    ...c.workspaces.map((w) => `workspace ${w}`),
    ...c.folders.map((f) => `folder ${f}`),
  ];
  return parts.length ? parts.join(', ') : 'none declared: only sessions without a project, workspace or folder';
}

/** What the command did that widens the caller's reach: a session it created is its own. */
export function remember(principal: Principal, name: string, output: unknown): void {
  if (isAgent(principal) && name === 'sessions.create') principal.created.add((output as { id: string }).id);
}

interface Citation {
  sessionId?: string | null;
  messageId?: string | null;
  ref?: string | null;
}

/**
 * An answer to an agent names only sessions it may reach: a citation of any other session keeps
 * its opaque ref and scope and loses the session and message ids, and a dialogue hit's ref (the
 * message id) becomes that opaque ref. The owner gets every id.
 */
export function confineOutput<T>(engine: Engine, principal: Principal, name: string, output: T): T {
  if (!isAgent(principal)) return output;
  const reachable = new Map<string, boolean>();
  const reach = (id: string) => {
    let ok = reachable.get(id);
    if (ok === undefined) reachable.set(id, (ok = canReachCitedSession(engine.db, principal, id)));
    return ok;
  };
  const foreign = (c: Citation | undefined) => typeof c?.sessionId === 'string' && !reach(c.sessionId);
  const o = output as Record<string, any>;
  const facts: { citation: Citation }[] =
    name === 'memory.recall' ? o.facts : name === 'turns.begin' ? o.context.recall.facts : [];
  for (const f of facts) {
    if (foreign(f.citation)) f.citation = { sessionId: null, messageId: null, ref: f.citation.ref ?? null };
  }
  if (name === 'memory.search') {
    for (const hit of o.results as { source: string; ref: string; citation: Citation }[]) {
      if (!foreign(hit.citation)) continue;
      const { sessionId: _s, messageId: _m, ...kept } = hit.citation;
      hit.citation = kept;
      if (hit.source === 'dialogue') hit.ref = kept.ref ?? 'message:(another session)';
    }
  }
  return output;
}
