import { Option } from 'commander';
import type { DoorCommand } from './framework';
import { DEFAULT_HTTP_PORT } from '../api/http-address';
import { setProcessKind } from '../log';
import { startLongLivedServices } from '../api/long-lived';
import { invalid } from '../../shared/errors';

/**
 * Resolves on SIGINT/SIGTERM or when the caller's signal aborts (tests run serve in-process).
 * The signal listeners stay until release(), after shutdown: signal-exit (loaded on first use by
 * proper-lockfile and write-file-atomic) re-raises a signal that finds no other listener, which
 * would kill the process halfway through its clean shutdown.
 */
function untilStopped(signal: AbortSignal): { stopped: Promise<string>; release(): void } {
  let resolveStop!: (why: string) => void;
  const stopped = new Promise<string>((resolve) => (resolveStop = resolve));
  const onInt = () => resolveStop('SIGINT');
  const onTerm = () => resolveStop('SIGTERM');
  const onAbort = () => resolveStop('abort');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    stopped,
    release: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

const portText = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The HTTP port: a whole number from 0 (any free port) to 65535. */
function portFrom(text: string | undefined): number {
  if (text === undefined) return DEFAULT_HTTP_PORT;
  const port = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!Number.isInteger(port) || port > 65_535) {
    throw invalid('port', `must be a whole number from 0 to 65535 (got "${text}")`);
  }
  return port;
}

export const serveCommand: DoorCommand = {
  path: ['serve'],
  summary: 'Headless mode: the HTTP JSON API, MCP over HTTP (/mcp) and the desktop window in a browser, on 127.0.0.1.',
  options: () => [new Option('--port <n>', `TCP port (default ${DEFAULT_HTTP_PORT}; 0 = any free port)`)],
  run: async (ctx, _input, options) => {
    const port = portFrom(portText(options.port));
    setProcessKind('serve');
    // Loaded here so no other command pays for the HTTP server's modules.
    const { startHttpServer } = await import('../api/http');
    const engine = ctx.engine();
    const server = await startHttpServer({
      engine,
      port,
      announceAs: 'serve',
      mcpLimits: { idleMs: engine.settings.http.mcpIdleMs },
    });
    const stopServices = startLongLivedServices(engine);
    const info = {
      url: server.url,
      browserUrl: server.browserUrl,
      mcpUrl: server.mcpUrl,
      openapiUrl: `${server.url}/api/v1/openapi.json`,
      port: server.port,
      home: ctx.home,
      tokenFile: engine.paths.httpToken,
    };
    ctx.out(
      ctx.json
        ? JSON.stringify(info)
        : [
            `EvoFlux Memory is serving ${ctx.home}`,
            `  open:  ${server.browserUrl}`,
            `  API:   POST ${server.url}/api/v1/commands/<name>  (Authorization: Bearer $(cat ${engine.paths.httpToken}))`,
            `  MCP:   ${server.mcpUrl}  (Streamable HTTP, same header; ?project=ID&workspace=PATH&folder=ID confine the agent)`,
            `  docs:  ${info.openapiUrl}`,
            '  stop:  Ctrl+C',
          ].join('\n'),
    );
    const until = untilStopped(ctx.signal);
    try {
      const why = await until.stopped;
      if (!ctx.json) ctx.err(`evoflux-memory: ${why}, shutting down`);
      engine.log.info(`serve: ${why}, shutting down`);
      // Requests and MCP calls in flight finish first; then Dream stops and the engine drains.
      await server.close();
      await stopServices();
    } finally {
      until.release();
    }
    // The CLI closes the engine after run() returns, draining background work first.
    return null;
  },
};
