import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Engine } from '../engine';
import { changeFeedFor } from './change-feed';

const PING_MS = 15_000;

/**
 * Server-sent events for the window over HTTP: `ready` once, then one `changed` event whenever
 * anything in the data home changed (this process, the CLI, an agent), so views refresh. The
 * caller has checked the token (the window reads the stream with fetch, which can send it).
 */
export function streamChanges(
  engine: Engine,
  req: IncomingMessage,
  res: ServerResponse,
  headers: Record<string, string>,
): void {
  res.writeHead(200, {
    ...headers,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
  });
  res.write('retry: 2000\nevent: ready\ndata: {}\n\n');
  const off = changeFeedFor(engine).subscribe((event) => {
    res.write(`event: changed\ndata: ${JSON.stringify(event)}\n\n`);
  });
  // A comment now and then keeps proxies and idle timers from closing a quiet stream.
  const ping = setInterval(() => res.write(': ping\n\n'), PING_MS);
  ping.unref();
  req.socket.setTimeout(0);
  const end = () => {
    clearInterval(ping);
    off();
  };
  req.on('close', end);
  res.on('close', end);
}
