import { Option } from 'commander';
import type { DoorCommand } from './framework';
import { startLongLivedServices, warmInBackground } from '../api/long-lived';
import { setProcessKind } from '../log';
import type { AgentContext } from '../commands/principal';
import { declaredContext } from '../api/declared-context';

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

/** The context the agent connection is started for: every session it reaches lies inside it. */
export const contextFromFlags = (options: Record<string, unknown>): AgentContext =>
  declaredContext(
    { project: options.project, workspace: options.workspace, folder: options.folder },
    (name) => `--${name}`,
  );

const repeatable = (value: string, previous: string[] = []) => [...previous, value];

export const mcpCommand: DoorCommand = {
  path: ['mcp'],
  summary: 'Serve the agent tools over MCP on stdio (for a local agent companion).',
  options: () => [
    new Option('--project <id>', 'A Coding project this agent may reach (repeatable).').argParser(repeatable),
    new Option(
      '--workspace <path>',
      "A workspace folder this agent may reach (repeatable); without it, the client's roots are its workspaces.",
    ).argParser(repeatable),
    new Option('--folder <id>', 'A Work folder this agent may reach (repeatable).').argParser(repeatable),
    new Option('--schedule', 'Also run the Dream schedule in this process.'),
  ],
  run: async (ctx, _input, options) => {
    const context = contextFromFlags(options);
    const restore = logsToStderr();
    const stopped = new AbortController();
    const onSignal = () => stopped.abort();
    // Kept until shutdown is done (see serve.ts: signal-exit re-raises a signal nobody else hears).
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    ctx.signal.addEventListener('abort', onSignal, { once: true });
    setProcessKind('mcp');
    const engine = ctx.engine();
    // The desktop app or `serve` normally owns the schedule; a companion can still run Dream by tool.
    // Either way its first memory_recall should find a worker with its connection open: the worker
    // starts before the MCP SDK loads, so the two overlap.
    let stopServices = async () => {};
    if (options.schedule === true) stopServices = startLongLivedServices(engine);
    else warmInBackground(engine);
    // The MCP SDK is loaded only by this command.
    const { serveMcp } = await import('../api/mcp');
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
};
