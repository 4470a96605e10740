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
import { streamChanges } from './events-stream';

/** Loopback only: the door is for this user's processes and this user's browser. */
export const HTTP_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 7437;
/** messages.add accepts a million characters; UTF-8 can need four bytes for each. */
const MAX_BODY_BYTES = 5 * 1024 * 1024;
const COMMAND_PREFIX = '/api/commands/';

export interface HttpServerOptions {
  engine: Engine;
  /** 0 picks a free port. */
  port?: number;
  /** The built renderer (out/renderer); when missing, only the API is served. */
  rendererDir?: string | null;
}

export interface HttpServer {
  url: string;
  port: number;
  token: string;
  /** The address to open in a browser: the token travels in the fragment, which is never sent to a server. */
  browserUrl: string;
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

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new CommandError('invalid_input', `body: larger than ${MAX_BODY_BYTES} bytes`, 'body'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
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

export function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const { engine } = options;
  const token = ensureHttpToken(engine.paths.httpToken);
  const rendererDir = options.rendererDir === undefined ? findRendererDir() : options.rendererDir;
  let port = 0;

  const refuseWithoutToken = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (bearerMatches(req.headers.authorization, token)) return false;
    sendError(
      res,
      new CommandError(
        'forbidden',
        'authorization: a valid "Bearer <token>" is required (see <home>/http-token)',
        'authorization',
      ),
      { 'WWW-Authenticate': 'Bearer' },
      401,
    );
    return true;
  };

  /** The change feed as server-sent events (see events-stream.ts); the token is required as everywhere. */
  const handleEvents = (req: IncomingMessage, res: ServerResponse) => {
    if (refuseWithoutToken(req, res)) return;
    if (req.method !== 'GET') {
      return sendError(res, new CommandError('invalid_input', 'method: /api/events needs GET', 'method'), {
        Allow: 'GET',
      });
    }
    streamChanges(engine, req, res, SECURITY_HEADERS);
  };

  const handleCommand = async (req: IncomingMessage, res: ServerResponse, name: string, query: URLSearchParams) => {
    if (refuseWithoutToken(req, res)) return;
    if (!isCommandName(name))
      return sendError(res, new CommandError('not_found', `unknown command: ${name}`, 'command'));
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
      raw = parseJsonInput(await readBody(req), 'body');
    } else if (req.method === 'GET' && !spec.mutates) {
      raw = parseJsonInput(query.get('input') ?? '', 'input');
    } else {
      return sendError(res, new CommandError('invalid_input', `method: ${name} needs POST`, 'method'), {
        Allow: spec.mutates ? 'POST' : 'GET, POST',
      });
    }
    sendJson(res, 200, await dispatch(engine, name, raw));
  };

  const serveStatic = (req: IncomingMessage, res: ServerResponse, pathname: string) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendError(res, new CommandError('not_found', `no route: ${req.method} ${pathname}`, 'path'));
    }
    if (!rendererDir) {
      res.writeHead(503, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
      return void res.end('The renderer is not built. Run `npm run build`, then restart `serve`.\n');
    }
    const relative = pathname === '/' ? 'index.html' : decodeURIComponent(pathname).replace(/^\/+/, '');
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
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        if (!hostAllowed(req.headers.host, port)) {
          return sendError(
            res,
            new CommandError('forbidden', `host: only ${HTTP_HOST}:${port} and localhost:${port} are served`, 'host'),
          );
        }
        const url = new URL(req.url ?? '/', `http://${HTTP_HOST}:${port}`);
        if (url.pathname.startsWith(COMMAND_PREFIX)) {
          return await handleCommand(
            req,
            res,
            decodeURIComponent(url.pathname.slice(COMMAND_PREFIX.length)),
            url.searchParams,
          );
        }
        if (url.pathname === '/api/events') return handleEvents(req, res);
        if (url.pathname.startsWith('/api/')) {
          return sendError(res, new CommandError('not_found', `no route: ${url.pathname}`, 'path'));
        }
        serveStatic(req, res, url.pathname);
      } catch (e) {
        const error = isCommandError(e) ? e : new CommandError('internal', (e as Error)?.message ?? String(e));
        if (error.code === 'internal') console.error('evoflux http:', e);
        if (!res.headersSent) sendError(res, error);
        else res.destroy();
      }
    })();
  });
  server.keepAliveTimeout = 5_000;

  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      reject(
        e.code === 'EADDRINUSE'
          ? new CommandError(
              'unavailable',
              `port: ${options.port} is already in use; pass another --port (0 picks a free one)`,
              'port',
            )
          : e,
      );
    });
    server.listen(options.port ?? DEFAULT_HTTP_PORT, HTTP_HOST, () => {
      port = (server.address() as AddressInfo).port;
      const url = `http://${HTTP_HOST}:${port}`;
      resolve({
        url,
        port,
        token,
        browserUrl: `${url}/#token=${token}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
