import { fileURLToPath } from 'node:url';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { normalizeWorkspacePath } from '../memory/workspace-path';
import { AgentPrincipal, type AgentContext } from '../commands/principal';
import { describeContext } from '../commands/confine';
import { id } from '../../shared/schemas';
import { invalid } from '../../shared/errors';

/** How long a tool call waits for the client's first roots/list answer before going on without it. */
const ROOTS_WAIT_MS = 5_000;

/** The workspaces named by file:// roots; other schemes and malformed URIs are ignored. */
export function workspacesFromRoots(roots: readonly { uri: string }[]): string[] {
  const out: string[] = [];
  for (const root of roots) {
    try {
      if (!root.uri.startsWith('file:')) continue;
      const workspace = normalizeWorkspacePath(fileURLToPath(root.uri));
      if (!out.includes(workspace)) out.push(workspace);
    } catch {
      // A root we cannot read as a local folder declares nothing.
    }
  }
  return out;
}

const list = (raw: unknown): string[] => (Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? [raw] : []);

/**
 * A context declared as lists of projects, workspaces and folders: the `mcp` launch flags, or
 * the query parameters of an `/mcp` URL. `label` names a field as the person typed it
 * (`--project`, `project`), so a refusal points at the right place.
 */
export function declaredContext(
  values: { project?: unknown; workspace?: unknown; folder?: unknown },
  label: (name: 'project' | 'workspace' | 'folder') => string,
): AgentContext {
  const unique = (xs: string[]) => [...new Set(xs)];
  const checkedId = (value: string, name: 'project' | 'folder') => {
    const parsed = id.safeParse(value);
    if (!parsed.success) throw invalid(name, `${label(name)}: ${parsed.error.issues[0]?.message ?? 'is not an id'}`);
    return parsed.data;
  };
  const workspace = (value: string) => {
    try {
      return normalizeWorkspacePath(value);
    } catch (e) {
      throw invalid('workspace', `${label('workspace')}: ${(e as Error).message.replace(/^workspace: /, '')}`);
    }
  };
  return {
    projects: unique(list(values.project).map((p) => checkedId(p, 'project'))),
    workspaces: unique(list(values.workspace).map(workspace)),
    folders: unique(list(values.folder).map((f) => checkedId(f, 'folder'))),
  };
}

export interface ConnectionContext {
  principal: AgentPrincipal;
  /** Resolves once the declared context is known (the client's first roots answer, if any). */
  ready(): Promise<void>;
}

/**
 * The agent principal of one MCP connection. Its context is the launch flags; when no
 * `--workspace` flag was given and the client supports roots, the client's file:// roots are its
 * workspaces, refreshed whenever the client says its roots changed.
 */
export function connectionContext(server: Server, flags: AgentContext, log: (line: string) => void): ConnectionContext {
  const principal = new AgentPrincipal(flags, 'mcp');
  let settled!: () => void;
  const first = new Promise<void>((resolve) => (settled = resolve));
  const useRoots = flags.workspaces.length === 0;

  const refresh = async () => {
    try {
      const { roots } = await server.listRoots(undefined, { timeout: ROOTS_WAIT_MS });
      principal.context = { ...flags, workspaces: workspacesFromRoots(roots) };
      log(`evoflux-memory mcp: context from the client's roots: ${describeContext(principal.context)}`);
    } catch (e) {
      log(
        `evoflux-memory mcp: roots/list failed (${(e as Error).message}); context stays ${describeContext(principal.context)}`,
      );
    } finally {
      settled();
    }
  };

  server.oninitialized = () => {
    if (useRoots && server.getClientCapabilities()?.roots) void refresh();
    else settled();
  };
  if (useRoots) server.setNotificationHandler(RootsListChangedNotificationSchema, () => void refresh());
  return {
    principal,
    ready: () => Promise.race([first, new Promise<void>((resolve) => setTimeout(resolve, ROOTS_WAIT_MS).unref())]),
  };
}
