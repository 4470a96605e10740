import type { Engine } from '../engine';
import { startHttpServer, type HttpServer } from './http';
import { isCommandError } from '../../shared/errors';

/**
 * The desktop app's HTTP door, so agents that prefer a URL (MCP at /mcp) and scripts reach the
 * running app: `http.port` from settings.yaml (default 7437), or a free port when that one is
 * taken (by `serve`, or another home's app); either way `<home>/http-server.json` says which.
 * `http.enabled: false` turns it off. It never stops the app from starting.
 */
export async function startDesktopHttpServer(engine: Engine): Promise<HttpServer | null> {
  const { enabled, port, mcpIdleMs } = engine.settings.http;
  if (!enabled) return null;
  const start = (p: number) =>
    startHttpServer({ engine, port: p, announceAs: 'desktop', mcpLimits: { idleMs: mcpIdleMs } });
  try {
    return await start(port);
  } catch (e) {
    if (isCommandError(e) && e.field === 'port' && port !== 0) {
      engine.log.warn(`http: port ${port} is taken; serving on a free port instead (see http-server.json)`);
      try {
        return await start(0);
      } catch (again) {
        engine.log.error('http: could not start the HTTP door', again);
        return null;
      }
    }
    engine.log.error('http: could not start the HTTP door', e);
    return null;
  }
}
