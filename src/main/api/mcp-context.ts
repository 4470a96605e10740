import { fileURLToPath } from 'node:url';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { normalizeWorkspacePath } from '../memory/workspace-path';
import { AgentPrincipal, type AgentContext } from '../commands/principal';
import { describeContext } from '../commands/confine';

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
