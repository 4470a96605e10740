import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Engine } from '../engine';
import { API_VERSION, MCP_PATH, OPENAPI_PATH, unversioned } from './http-paths';
import { httpServerInfo, removeHttpServerInfo, writeHttpServerInfo } from './http-discovery';
import { openApiDocument } from './openapi';
import type { McpHttpDoor } from './mcp-http';
import { DEFAULT_MCP_HTTP_LIMITS, type McpHttpLimits } from './http-limits';
import { drainRequests, type RequestDrain } from './http-drain';
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
  /** MCP over HTTP: message size, idle time and session count. */
  mcpLimits?: Partial<McpHttpLimits>;
  /** Who serves (`serve`, `desktop`): written to <home>/http-server.json so clients find the port. */
  announceAs?: string;
}

export interface HttpServer {
  url: string;
  port: number;
  token: string;
  /** The address to open in a browser: the token travels in the fragment, which is never sent to a server. */
  browserUrl: string;
  /** MCP over Streamable HTTP: `${url}/mcp`. */
  mcpUrl: string;
  /** Connections open right now. */
  connections(): Promise<number>;
  /** MCP sessions open right now, and how many hold a notice stream open. */
  mcpSessions(): { open: number; listening: number };
  /** Closes the MCP sessions idle past the limit now (the door also does it on a timer); returns how many. */
  sweepIdleMcpSessions(): number;
  /**
   * Stops accepting, lets requests and MCP calls in flight finish (at most `drainMs`), then
   * closes every MCP session and connection.
   */
  close(options?: { drainMs?: number }): Promise<void>;
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
    'API-Version': API_VERSION,
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
  // A lock held by another process for a moment: generic clients retry a 503 after Retry-After.
  if (error.code === 'busy' && !('Retry-After' in extra)) res.setHeader('Retry-After', '1');
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
  mcp(): Promise<McpHttpDoor>;
  token: string;
  rendererDir: string | null;
  limits: HttpLimits;
  port(): number;
}

const unauthorized = () =>
  new CommandError(
    'unauthorized',
    'authorization: a valid "Bearer <token>" is required (see <home>/http-token)',
    'authorization',
  );

/** 405 with the methods the path answers. */
function wrongMethod(res: ServerResponse, message: string, allow: string): void {
  sendError(res, new CommandError('invalid_input', `method: ${message}`, 'method'), { Allow: allow }, 405);
}

/**
 * DNS rebinding and cross-site defence beside the Host check: a browser sends Origin with every
 * cross-origin request, and only this server's own pages (the window served by `serve`) may call it.
 * Clients outside a browser send none.
 */
export function originAllowed(origin: string | undefined, port: number): boolean {
  return origin === undefined || origin === `http://${HTTP_HOST}:${port}` || origin === `http://localhost:${port}`;
}

/** The OpenAPI document: the shape of the API, no data, so it needs no token (Host and Origin still apply). */
function handleOpenApi(door: DoorContext, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET') return wrongMethod(res, `${OPENAPI_PATH} answers GET`, 'GET');
  sendJson(res, 200, openApiDocument(`http://${HTTP_HOST}:${door.port()}`));
}

/** MCP over Streamable HTTP (mcp-http.ts); loaded on the first request so `serve` starts without the MCP SDK. */
async function handleMcp(door: DoorContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  if (!authorized(door, req, res)) return;
  if (!['GET', 'POST', 'DELETE'].includes(req.method ?? '')) {
    return wrongMethod(res, `${MCP_PATH} answers POST, GET and DELETE`, 'GET, POST, DELETE');
  }
  await (await door.mcp()).handle(req, res, url.searchParams);
}

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
    return wrongMethod(res, `${name} needs POST`, spec.mutates ? 'POST' : 'GET, POST');
  }
  sendJson(res, 200, await dispatch(door.engine, name, raw, OWNER));
}

/** `system.doctor` for monitors: 200 when healthy, 503 when something is broken (same token). */
async function handleHealth(door: DoorContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!authorized(door, req, res)) return;
  if (req.method !== 'GET') {
    return wrongMethod(res, '/api/health answers GET', 'GET');
  }
  const report = await dispatch(door.engine, 'system.doctor', {}, OWNER);
  sendJson(res, report.ok ? 200 : 503, report);
}

/** The change feed as server-sent events (see events-stream.ts); the token is required as everywhere. */
function handleEvents(door: DoorContext, req: IncomingMessage, res: ServerResponse): void {
  if (!authorized(door, req, res)) return;
  if (req.method !== 'GET') {
    return wrongMethod(res, '/api/events needs GET', 'GET');
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
  if (!originAllowed(req.headers.origin, port)) {
    return sendError(
      res,
      new CommandError('forbidden', `origin: only pages of http://${HTTP_HOST}:${port} may call this server`, 'origin'),
    );
  }
  const url = new URL(req.url ?? '/', `http://${HTTP_HOST}:${port}`);
  url.pathname = unversioned(url.pathname);
  if (url.pathname === MCP_PATH) return handleMcp(door, req, res, url);
  if (url.pathname === OPENAPI_PATH) return handleOpenApi(door, req, res);
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

/** Refused once shutdown began: the client learns to come back rather than waiting on a closing socket. */
function refuseWhileClosing(res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  sendError(res, new CommandError('unavailable', 'EvoFlux Memory is shutting down; try again in a moment'), {
    'Retry-After': '5',
  });
}

/** The MCP sessions of this door, created on the first /mcp request. */
function mcpDoorFor(options: HttpServerOptions, port: () => number) {
  let door: Promise<McpHttpDoor> | null = null;
  let created: McpHttpDoor | null = null;
  const mcpLimits: McpHttpLimits = { ...DEFAULT_MCP_HTTP_LIMITS, ...options.mcpLimits };
  const allowed = () => ({
    hosts: [`${HTTP_HOST}:${port()}`, `localhost:${port()}`],
    origins: [`http://${HTTP_HOST}:${port()}`, `http://localhost:${port()}`],
  });
  return {
    get: () =>
      (door ??= import('./mcp-http').then(
        ({ McpHttpDoor }) => (created = new McpHttpDoor(options.engine, mcpLimits, allowed)),
      )),
    created: () => created,
  };
}

export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  let port = 0;
  const mcp = mcpDoorFor(options, () => port);
  const door: DoorContext = {
    engine: options.engine,
    mcp: mcp.get,
    token: ensureHttpToken(options.engine.paths.httpToken),
    rendererDir: options.rendererDir === undefined ? findRendererDir() : options.rendererDir,
    limits,
    port: () => port,
  };
  const drain: RequestDrain = drainRequests();
  const server: Server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.connectionsCheckingIntervalMs,
    },
    (req, res) => {
      if (drain.closing) return refuseWhileClosing(res);
      drain.track(req, res);
      void route(door, req, res).catch((e) => answerFailure(door, req, res, e));
    },
  );
  server.maxConnections = limits.maxConnections;
  port = await listen(server, options.port ?? DEFAULT_HTTP_PORT);
  const url = `http://${HTTP_HOST}:${port}`;
  const infoFile = options.engine.paths.httpServer;
  if (options.announceAs) {
    writeHttpServerInfo(infoFile, httpServerInfo(url, port, options.announceAs, options.engine.paths.httpToken));
  }
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  return {
    url,
    port,
    token: door.token,
    browserUrl: `${url}/#token=${door.token}`,
    mcpUrl: `${url}${MCP_PATH}`,
    connections: () => new Promise((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n)))),
    mcpSessions: () => mcp.created()?.counts() ?? { open: 0, listening: 0 },
    sweepIdleMcpSessions: () => mcp.created()?.sweepIdle() ?? 0,
    close: async ({ drainMs = limits.drainMs } = {}) => {
      if (options.announceAs) removeHttpServerInfo(infoFile);
      if (drain.closing) return closed;
      drain.closing = true;
      mcp.created()?.stopAccepting();
      server.close();
      server.closeIdleConnections();
      if (!(await drain.idle(drainMs))) {
        options.engine.log.warn(`http: ${drain.inFlight()} requests still running after ${drainMs} ms; closing them`);
      }
      await mcp.created()?.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
