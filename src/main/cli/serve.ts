import { int, type CliCommand } from './framework';
import { DEFAULT_HTTP_PORT } from '../api/http-address';
import { startLongLivedServices } from '../api/long-lived';
import { invalid } from '../../shared/errors';

/** Resolves on SIGINT/SIGTERM or when the caller's signal aborts (tests run serve in-process). */
function untilStopped(signal: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const stop = (why: string) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      signal.removeEventListener('abort', onAbort);
      resolve(why);
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    const onAbort = () => stop('abort');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

export const serveCli: CliCommand[] = [
  {
    path: ['serve'],
    summary: 'headless mode: the HTTP JSON API and the desktop window in a browser, on 127.0.0.1',
    usage: `[--port N (default ${DEFAULT_HTTP_PORT}; 0 = any free port)]`,
    options: { port: { type: 'string' } },
    run: async (ctx, v) => {
      const port = int(v, 'port') ?? DEFAULT_HTTP_PORT;
      if (port < 0 || port > 65_535) throw invalid('port', 'must be between 0 and 65535');
      // Loaded here so no other command pays for the HTTP server's modules.
      const { startHttpServer } = await import('../api/http');
      const engine = ctx.engine();
      const server = await startHttpServer({ engine, port });
      const stopServices = startLongLivedServices(engine);
      const info = {
        url: server.url,
        browserUrl: server.browserUrl,
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
              `  API:   POST ${server.url}/api/commands/<name>  (Authorization: Bearer $(cat ${engine.paths.httpToken}))`,
              '  stop:  Ctrl+C',
            ].join('\n'),
      );
      const why = await untilStopped(ctx.signal);
      if (!ctx.json) ctx.err(`evoflux-memory: ${why}, shutting down`);
      await stopServices();
      await server.close();
      // The CLI closes the engine after run() returns, draining background work first.
      return null;
    },
  },
];
