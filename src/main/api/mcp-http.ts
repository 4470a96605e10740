import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Engine } from '../engine';
import { describeContext } from '../commands/confine';
import { declaredContext } from './declared-context';
import { createMcpServer, type AgentConnection } from './mcp';
import { HeadAndTail, oversizeReply, type SniffedRequest } from './mcp-oversize';
import { isCommandError } from '../../shared/errors';
import type { McpHttpLimits } from './http-limits';

/**
 * MCP over Streamable HTTP at `/mcp`, for clients that prefer a URL to spawning a process. The
 * HTTP door has already checked the token, the Host and the Origin. Each client gets its own
 * MCP session (the Mcp-Session-Id header): its own server, and its own agent principal confined
 * to the context declared by the URL it was configured with (`?project=…&workspace=…&folder=…`,
 * each repeatable; without `workspace`, the client's roots). Sessions end on DELETE, after an
 * idle time, and when the door closes.
 */

interface McpHttpSession {
  transport: StreamableHTTPServerTransport;
  connection: AgentConnection;
  lastSeen: number;
  /** Open GET streams: a client listening for notices is not idle. */
  streams: number;
}

type ReadResult = { kind: 'ok'; body: unknown } | { kind: 'oversize'; sniffed: SniffedRequest; size: number };

const DISCARD_MAX = 64 * 1024 * 1024;

function sendRpc(res: ServerResponse, status: number, message: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(message);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

const rpcError = (code: number, message: string, id: RequestId | null = null, data?: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message, ...(data === undefined ? {} : { data }) },
});

/**
 * The POST body, at most `max` bytes. Past the bound nothing more is held: the rest is read and
 * dropped (its first and last bytes kept to find the id); past a far larger bound the
 * connection is closed.
 */
function readMessage(req: IncomingMessage, max: number): Promise<ReadResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over: HeadAndTail | null = null;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (over) {
        over.push(chunk);
        if (size > max + DISCARD_MAX) req.socket.destroy();
        return;
      }
      if (size <= max) return void chunks.push(chunk);
      over = new HeadAndTail();
      for (const held of chunks.splice(0)) over.push(held);
      over.push(chunk);
    });
    req.on('end', () => {
      if (over) return resolve({ kind: 'oversize', sniffed: over.sniff(), size });
      try {
        resolve({ kind: 'ok', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        resolve({ kind: 'ok', body: undefined });
      }
    });
    req.on('error', reject);
  });
}

export class McpHttpDoor {
  private readonly sessions = new Map<string, McpHttpSession>();
  private closing = false;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly engine: Engine,
    private readonly limits: McpHttpLimits,
    /** The Host and Origin values the SDK's own DNS-rebinding check accepts (ours runs first). */
    private readonly allowed: () => { hosts: string[]; origins: string[] },
  ) {
    this.sweeper = setInterval(() => this.sweepIdle(), Math.min(limits.idleMs / 2, 60_000));
    this.sweeper.unref();
  }

  /** Sessions open, and how many of them hold a notice stream (GET) open right now. */
  counts(): { open: number; listening: number } {
    const listening = [...this.sessions.values()].filter((s) => s.streams > 0).length;
    return { open: this.sessions.size, listening };
  }

  async handle(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    if (this.closing) {
      return sendRpc(res, 503, rpcError(-32000, 'the server is shutting down; connect again in a moment'), {
        'Retry-After': '5',
      });
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') return this.handleInSession(req, res, sessionId);
    if (req.method !== 'POST') {
      return sendRpc(res, 400, rpcError(-32000, 'Bad Request: Mcp-Session-Id header is required'), {
        Allow: 'POST',
      });
    }
    const read = await readMessage(req, this.limits.maxMessageBytes);
    if (read.kind === 'oversize') return this.answerOversize(res, read, false);
    if (!isInitializeRequest(read.body)) {
      return sendRpc(
        res,
        400,
        rpcError(-32000, 'Bad Request: no session; start one with an initialize request (no Mcp-Session-Id header)'),
      );
    }
    await this.startSession(req, res, query, read.body);
  }

  private async handleInSession(req: IncomingMessage, res: ServerResponse, sessionId: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) {
      // The MCP answer for an unknown or expired session: the client starts a new one.
      return sendRpc(res, 404, rpcError(-32001, 'Session not found: it ended or expired; initialize a new one'));
    }
    session.lastSeen = this.engine.clock.now();
    if (req.method === 'GET') {
      session.streams++;
      res.once('close', () => {
        session.streams--;
        session.lastSeen = this.engine.clock.now();
      });
    }
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readMessage(req, this.limits.maxMessageBytes);
      if (read.kind === 'oversize') return this.answerOversize(res, read, true);
      body = read.body;
    }
    await session.transport.handleRequest(req, res, body);
  }

  /** A tool call in a session gets its error result (HTTP 200, like any answer); anything else a 413. */
  private answerOversize(res: ServerResponse, read: Extract<ReadResult, { kind: 'oversize' }>, inSession: boolean) {
    this.engine.log.warn(
      `mcp-http: dropped a message of ${read.size} bytes (${read.sniffed.method ?? 'unknown method'})`,
    );
    const reply = oversizeReply(read.sniffed, read.size, this.limits.maxMessageBytes) as
      (JSONRPCMessage & { result?: unknown }) | null;
    if (!reply) return void res.writeHead(413).end();
    sendRpc(res, inSession && 'result' in reply ? 200 : 413, reply);
  }

  private async startSession(
    req: IncomingMessage,
    res: ServerResponse,
    query: URLSearchParams,
    initialize: unknown,
  ): Promise<void> {
    if (this.sessions.size >= this.limits.maxSessions) {
      return sendRpc(
        res,
        503,
        rpcError(-32000, `too many MCP sessions (${this.limits.maxSessions}); try again later`),
        {
          'Retry-After': '30',
        },
      );
    }
    let context;
    try {
      context = declaredContext(
        { project: query.getAll('project'), workspace: query.getAll('workspace'), folder: query.getAll('folder') },
        (name) => `the ${name} URL parameter`,
      );
    } catch (e) {
      if (!isCommandError(e)) throw e;
      return sendRpc(res, 400, rpcError(-32602, `Invalid params: ${e.message}`, null, e.toJSON()));
    }
    const log = (line: string) => this.engine.log.info(line.replace(/^evoflux-memory mcp: /, 'mcp-http: '));
    const connection = createMcpServer(this.engine, { context, log });
    const { hosts, origins } = this.allowed();
    const session: McpHttpSession = {
      connection,
      lastSeen: this.engine.clock.now(),
      streams: 0,
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          this.sessions.set(id, session);
          this.engine.log.info(`mcp-http: session ${id.slice(0, 8)} opened (context: ${describeContext(context)})`);
        },
        onsessionclosed: (id) => void setImmediate(() => void this.end(id, 'closed by the client')),
        maxRequestBodySize: this.limits.maxMessageBytes,
        enableDnsRebindingProtection: true,
        allowedHosts: hosts,
        allowedOrigins: origins,
      }),
    };
    connection.server.onerror = (e) => this.engine.log.debug(`mcp-http: ${e.message}`);
    await connection.server.connect(session.transport);
    await session.transport.handleRequest(req, res, initialize);
  }

  private async end(id: string, why: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    session.connection.dispose();
    await session.connection.server.close().catch(() => {});
    this.engine.log.info(`mcp-http: session ${id.slice(0, 8)} ended (${why})`);
  }

  /** Closes the sessions idle for longer than the limit; returns how many. */
  sweepIdle(): number {
    const cutoff = this.engine.clock.now() - this.limits.idleMs;
    const idle = [...this.sessions].filter(([, s]) => s.streams === 0 && s.lastSeen < cutoff).map(([id]) => id);
    for (const id of idle) void this.end(id, 'idle');
    return idle.length;
  }

  /** Refuses new requests from now on (the HTTP door drains calls in flight before close()). */
  stopAccepting(): void {
    this.closing = true;
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.end(id, 'the server is stopping')));
  }
}
