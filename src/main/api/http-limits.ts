import type { IncomingMessage } from 'node:http';
import { CommandError } from '../../shared/errors';
import { DEFAULT_MCP_MESSAGE_BYTES } from './mcp-oversize';

/**
 * What one client may cost the HTTP door. A slow or hostile client on this machine cannot hold
 * sockets open for minutes, fill memory with a body, or exhaust the process's descriptors.
 */
export interface HttpLimits {
  /** Largest POST body; more gets a 413 (messages.add accepts a million characters, up to 4 bytes each). */
  maxBodyBytes: number;
  /** Time from connecting to the end of the request headers (an idle connection counts too). */
  headersTimeoutMs: number;
  /** Time to receive the whole request, body included. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Connections open at once; one more is closed as soon as it is accepted. */
  maxConnections: number;
  /** How often the two timeouts above are checked (Node's default, 30 s, would let them run over by that much). */
  connectionsCheckingIntervalMs: number;
  /** On shutdown, requests and MCP calls in flight get this long to finish before their connections are closed. */
  drainMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  maxBodyBytes: 5 * 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  // Each MCP client over HTTP holds a notice stream open besides its requests: room for a hundred or more.
  maxConnections: 512,
  connectionsCheckingIntervalMs: 1_000,
  drainMs: 10_000,
};

export interface McpHttpLimits {
  /** Largest JSON-RPC message in one POST; a larger one is answered with an error and dropped. */
  maxMessageBytes: number;
  /** A session with no request and no open stream for this long is closed. */
  idleMs: number;
  /** Sessions at once; one more initialize is answered 503 with Retry-After. */
  maxSessions: number;
}

export const DEFAULT_MCP_HTTP_LIMITS: McpHttpLimits = {
  maxMessageBytes: DEFAULT_MCP_MESSAGE_BYTES,
  idleMs: 30 * 60_000,
  maxSessions: 256,
};

/** A CommandError answered with a specific HTTP status instead of its code's usual one. */
export class HttpStatusError extends CommandError {
  constructor(
    readonly status: number,
    error: CommandError,
  ) {
    super(error.code, error.message, error.field);
  }
}

const tooLarge = (max: number) =>
  new HttpStatusError(413, new CommandError('invalid_input', `body: larger than ${max} bytes`, 'body'));

/**
 * The request body as text, at most `max` bytes. A body over the cap rejects at once with a
 * 413 error but is never cut off by destroying the socket (the client would see a reset instead
 * of the answer): what is left is read and dropped, bounded by the request timeout and by
 * `discardMax` bytes, after which the connection is closed.
 */
export function readBody(
  req: IncomingMessage,
  max: number,
  discardMax = Math.max(8 * max, 64 * 1024 * 1024),
): Promise<string> {
  const declared = Number(req.headers['content-length']);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    const refuse = () => {
      over = true;
      chunks.length = 0;
      reject(tooLarge(max));
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (over) {
        if (size > max + discardMax) req.socket.destroy();
        return;
      }
      if (size > max) return refuse();
      chunks.push(chunk);
    });
    req.on('end', () => over || resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', (e) => over || reject(e));
    if (Number.isFinite(declared) && declared > max) refuse();
  });
}

/**
 * A percent-decoded path segment; malformed encoding (`%`, `%E0%A4%A`, `%zz`) is the caller's
 * mistake, answered 400 naming the path, never a 500.
 */
export function decodePath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new CommandError('invalid_input', 'path: is not valid percent-encoding', 'path');
  }
}
