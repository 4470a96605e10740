import type { CliCommand, Values } from './framework';
import { serveMcp } from '../api/mcp';
import { startLongLivedServices } from '../api/long-lived';
import { normalizeWorkspacePath } from '../memory/workspace-path';
import type { AgentContext } from '../commands/principal';
import { id } from '../../shared/schemas';
import { invalid } from '../../shared/errors';

/**
 * `evoflux-memory mcp`: stdout belongs to the protocol alone, so anything the engine or a
 * library logs is sent to stderr while the server runs.
 */
function logsToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toStderr = (...args: unknown[]) => console.error(...args);
  Object.assign(console, { log: toStderr, info: toStderr, debug: toStderr });
  return () => Object.assign(console, saved);
}

const list = (v: Values, name: string): string[] => {
  const raw = v[name];
  return Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
};

function checkedId(value: string, flag: string): string {
  const parsed = id.safeParse(value);
  if (!parsed.success) throw invalid(flag, `--${flag}: ${parsed.error.issues[0]?.message ?? 'is not an id'}`);
  return parsed.data;
}

/** The context the agent connection is started for: every session it reaches lies inside it. */
export function contextFromFlags(v: Values): AgentContext {
  const unique = (xs: string[]) => [...new Set(xs)];
  return {
    projects: unique(list(v, 'project').map((p) => checkedId(p, 'project'))),
    workspaces: unique(list(v, 'workspace').map((w) => normalizeWorkspacePath(w))),
    folders: unique(list(v, 'folder').map((f) => checkedId(f, 'folder'))),
  };
}

export const mcpCli: CliCommand[] = [
  {
    path: ['mcp'],
    summary: 'serve the agent tools over MCP on stdio (for a local agent companion)',
    usage:
      '[--project ID]... [--workspace PATH]... [--folder ID]... [--schedule]  (the context this agent may reach; ' +
      "without --workspace the client's roots are its workspaces; --schedule also runs the Dream schedule)",
    options: {
      schedule: { type: 'boolean' },
      project: { type: 'string', multiple: true },
      workspace: { type: 'string', multiple: true },
      folder: { type: 'string', multiple: true },
    },
    run: async (ctx, v) => {
      const context = contextFromFlags(v);
      const restore = logsToStderr();
      const stopped = new AbortController();
      const onSignal = () => stopped.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      ctx.signal.addEventListener('abort', onSignal, { once: true });
      const engine = ctx.engine();
      // The desktop app or `serve` normally owns the schedule; a companion can still run Dream by tool.
      const stopServices = v.schedule === true ? startLongLivedServices(engine) : async () => {};
      try {
        await serveMcp(engine, { context, signal: stopped.signal, log: ctx.err });
      } finally {
        await stopServices();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        restore();
        // A paused stdin would keep the process alive after the engine has closed.
        process.stdin.destroy();
      }
      return null;
    },
  },
];
