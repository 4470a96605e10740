import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Engine } from '../engine';
import { dispatch } from '../commands/dispatch';
import { contract, isCommandName } from '../../shared/contract';
import { CommandError, httpStatusFor, isCommandError } from '../../shared/errors';
import { bearerMatches, ensureHttpToken } from './http-token';
import { RENDERER_CSP_HEADER } from './csp';
import { OWNER } from '../commands/principal';
import { streamChanges } from './events-stream';
import { decodePath, DEFAULT_HTTP_LIMITS, HttpStatusError, readBody, type HttpLimits } from './http-limits';

import { DEFAULT_HTTP_PORT, HTTP_HOST } from './http-address';
import { receiveImportUpload, UPLOAD_PATH } from './import-upload';

export { DEFAULT_HTTP_PORT, HTTP_HOST } from './http-address';
const COMMAND_PREFIX = '/api/commands/';
const HEALTH_PATH = '/api/health';
const EVENTS_PATH = '/api/events';

export interface HttpServerOptions {
  engine: Engine;
  /** 0 picks a free port. */
  port?: number;
  /** The built renderer (out/renderer); when missing, only the API is served. */
  rendererDir?: string | null;
  /** Body, time and connection limits; the defaults suit a desktop machine (tests pass small ones). */
  limits?: Partial<HttpLimits>;
}

export interface HttpServer {
  url: string;
  port: number;
  token: string;
  /** The address to open in a browser: the token travels in the fragment, which is never sent to a server. */
  browserUrl: string;
  /** Connections open right now. */
  connections(): Promise<number>;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

function sendError(
  res: ServerResponse,
  error: CommandError,
  extra: Record<string, string> = {},
  status?: number,
): void {
  for (const [k, v] of Object.entries(extra)) res.setHeader(k, v);
  sendJson(res, status ?? httpStatusFor[error.code], { error: error.toJSON() });
}

function parseJsonInput(text: string, field: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new CommandError('invalid_input', `${field}: is not valid JSON`, field);
  }
}

/**
 * DNS rebinding defence: a page on evil.example resolved to 127.0.0.1 still sends its own
 * Host, so only the two loopback spellings of our exact port are accepted.
 */
export function hostAllowed(host: string | undefined, port: number): boolean {
  return host === `${HTTP_HOST}:${port}` || host === `localhost:${port}`;
}

/** Finds the built renderer by walking up from this file to the checkout (works from src/ and out/). */
export function findRendererDir(from = __dirname): string | null {
  let dir = from;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'out', 'renderer');
    if (existsSync(path.join(candidate, 'index.html'))) return candidate;
    if (path.basename(dir) === 'out' && existsSync(path.join(dir, 'renderer', 'index.html')))
      return path.join(dir, 'renderer');
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

interface DoorContext {
  engine: Engine;
  token: string;
  rendererDir: string | null;
  limits: HttpLimits;
  port(): number;
}

const unauthorized = () =>
  new CommandError(
    'forbidden',
    'authorization: a valid "Bearer <token>" is required (see <home>/http-token)',
    'authorization',
  );

/** False (and a 401 sent) unless the request carries the home's token. */
function authorized(door: DoorContext, req: IncomingMessage, res: ServerResponse): boolean {
  if (bearerMatches(req.headers.authorization, door.token)) return true;
  sendError(res, unauthorized(), { 'WWW-Authenticate': 'Bearer' }, 401);
  return false;
}

async function handleCommand(
  door: DoorContext,
  req: IncomingMessage,
  res: ServerResponse,
  rawName: string,
  query: URLSearchParams,
): Promise<void> {
  if (!authorized(door, req, res)) return;
  const name = decodePath(rawName);
  if (!isCommandName(name)) return sendError(res, new CommandError('not_found', `unknown command: ${name}`, 'command'));
  const spec = contract[name];
  let raw: unknown;
  if (req.method === 'POST') {
    // Requiring JSON keeps HTML forms (which cannot set this type) out, on top of the token.
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      return sendError(
        res,
        new CommandError('invalid_input', 'content-type: must be application/json', 'content-type'),
      );
    }
    raw = parseJsonInput(await readBody(req, door.limits.maxBodyBytes), 'body');
  } else if (req.method === 'GET' && !spec.mutates) {
    raw = parseJsonInput(query.get('input') ?? '', 'input');
  } else {
    return sendError(res, new CommandError('invalid_input', `method: ${name} needs POST`, 'method'), {
      Allow: spec.mutates ? 'POST' : 'GET, POST',
    });
  }
  sendJson(res, 200, await dispatch(door.engine, name, raw, OWNER));
}

/** `system.doctor` for monitors: 200 when healthy, 503 when something is broken (same token). */
async function handleHealth(door: DoorContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!authorized(door, req, res)) return;
  if (req.method !== 'GET') {
    return sendError(res, new CommandError('invalid_input', 'method: /api/health answers GET', 'method'), {
      Allow: 'GET',
    });
  }
  const report = await dispatch(door.engine, 'system.doctor', {}, OWNER);
  sendJson(res, report.ok ? 200 : 503, report);
}

/** The change feed as server-sent events (see events-stream.ts); the token is required as everywhere. */
function handleEvents(door: DoorContext, req: IncomingMessage, res: ServerResponse): void {
  if (!authorized(door, req, res)) return;
  if (req.method !== 'GET') {
    return sendError(res, new CommandError('invalid_input', 'method: /api/events needs GET', 'method'), {
      Allow: 'GET',
    });
  }
  streamChanges(door.engine, req, res, SECURITY_HEADERS);
}

/** The browser window's "Import history": the export as the body, the import runs in the background. */
async function handleUpload(
  door: DoorContext,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
): Promise<void> {
  if (!authorized(door, req, res)) return;
  sendJson(res, 202, await receiveImportUpload(door.engine, req, query));
}

function serveStatic(door: DoorContext, req: IncomingMessage, res: ServerResponse, pathname: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return sendError(res, new CommandError('not_found', `no route: ${req.method} ${pathname}`, 'path'));
  }
  const { rendererDir } = door;
  const relative = pathname === '/' ? 'index.html' : decodePath(pathname).replace(/^\/+/, '');
  if (!rendererDir) {
    res.writeHead(503, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
    return void res.end('The renderer is not built. Run `npm run build`, then restart `serve`.\n');
  }
  const file = path.resolve(rendererDir, relative);
  const inside = file.startsWith(rendererDir + path.sep);
  const found = inside && existsSync(file) && statSync(file).isFile();
  if (!found) {
    res.writeHead(404, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
    return void res.end('Not found\n');
  }
  const body = readFileSync(file);
  const isIndex = path.basename(file) === 'index.html';
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': body.length,
    'Content-Security-Policy': RENDERER_CSP_HEADER,
    // Hashed asset names never change content; the page itself must always be fresh.
    'Cache-Control': isIndex ? 'no-store' : 'public, max-age=31536000, immutable',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

async function route(door: DoorContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const port = door.port();
  if (!hostAllowed(req.headers.host, port)) {
    return sendError(
      res,
      new CommandError('forbidden', `host: only ${HTTP_HOST}:${port} and localhost:${port} are served`, 'host'),
    );
  }
  const url = new URL(req.url ?? '/', `http://${HTTP_HOST}:${port}`);
  if (url.pathname.startsWith(COMMAND_PREFIX)) {
    return handleCommand(door, req, res, url.pathname.slice(COMMAND_PREFIX.length), url.searchParams);
  }
  if (url.pathname === HEALTH_PATH) return handleHealth(door, req, res);
  if (url.pathname === EVENTS_PATH) return handleEvents(door, req, res);
  if (url.pathname === UPLOAD_PATH) return handleUpload(door, req, res, url.searchParams);
  if (url.pathname.startsWith('/api/')) {
    return sendError(res, new CommandError('not_found', `no route: ${url.pathname}`, 'path'));
  }
  serveStatic(door, req, res, url.pathname);
}

/** Every failure becomes a JSON error; only a real internal error is logged, and no stack ever leaves the process. */
function answerFailure(door: DoorContext, req: IncomingMessage, res: ServerResponse, e: unknown): void {
  // The client went away or timed out while sending its request: no one to answer, nothing to log.
  const aborted = (e as Error)?.message === 'aborted' || (e as NodeJS.ErrnoException)?.code === 'ECONNRESET';
  if (req.destroyed && aborted) return void res.destroy();
  const error = isCommandError(e) ? e : new CommandError('internal', 'internal error; see the server log');
  if (error.code === 'internal') door.engine.log.error('http: internal error', e);
  if (res.headersSent) return void res.destroy();
  sendError(res, error, {}, e instanceof HttpStatusError ? e.status : undefined);
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      reject(
        e.code === 'EADDRINUSE'
          ? new CommandError(
              'unavailable',
              `port: ${port} is already in use; pass another --port (0 picks a free one)`,
              'port',
            )
          : e,
      );
    });
    server.listen(port, HTTP_HOST, () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  let port = 0;
  const door: DoorContext = {
    engine: options.engine,
    token: ensureHttpToken(options.engine.paths.httpToken),
    rendererDir: options.rendererDir === undefined ? findRendererDir() : options.rendererDir,
    limits,
    port: () => port,
  };
  const server: Server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.connectionsCheckingIntervalMs,
    },
    (req, res) => void route(door, req, res).catch((e) => answerFailure(door, req, res, e)),
  );
  server.maxConnections = limits.maxConnections;
  port = await listen(server, options.port ?? DEFAULT_HTTP_PORT);
  const url = `http://${HTTP_HOST}:${port}`;
  return {
    url,
    port,
    token: door.token,
    browserUrl: `${url}/#token=${door.token}`,
    connections: () => new Promise((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n)))),
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
