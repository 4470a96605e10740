import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Requests in flight, for a shutdown that lets them finish. Streams that stay open by design
 * (the change feed, an MCP client's notice stream) are not counted: they are closed, not awaited.
 */
export interface RequestDrain {
  /** Set once shutdown began: new requests are refused. */
  closing: boolean;
  track(req: IncomingMessage, res: ServerResponse): void;
  inFlight(): number;
  /** Resolves when nothing is in flight, or after `timeoutMs`; true when it drained. */
  idle(timeoutMs: number): Promise<boolean>;
}

const STREAM_PATHS = new Set(['/api/events', '/api/v1/events', '/mcp']);

function isStream(req: IncomingMessage): boolean {
  if (req.method !== 'GET') return false;
  const pathname = (req.url ?? '/').split('?', 1)[0]!;
  return STREAM_PATHS.has(pathname);
}

export function drainRequests(): RequestDrain {
  let active = 0;
  const waiters = new Set<() => void>();
  const settle = () => {
    if (active === 0) for (const wake of [...waiters]) wake();
  };
  return {
    closing: false,
    track(req, res) {
      if (isStream(req)) return;
      active++;
      res.once('close', () => {
        active--;
        settle();
      });
    },
    inFlight: () => active,
    idle(timeoutMs) {
      if (active === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (drained: boolean) => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(drained);
        };
        const wake = () => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        waiters.add(wake);
      });
    },
  };
}
