import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources } from '../helpers/home';
import { startHttpServer, type HttpServer, type HttpServerOptions } from '../../src/main/api/http';

const res = testResources();
const servers: HttpServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  sockets.splice(0).forEach((s) => s.destroy());
  for (const s of servers.splice(0)) await s.close();
  await res.release();
});

async function serve(limits: HttpServerOptions['limits'] = {}) {
  const t = res.engine();
  const server = await startHttpServer({ engine: t.engine, port: 0, rendererDir: null, limits });
  servers.push(server);
  return server;
}

interface Reply {
  status: number;
  type: string | undefined;
  body: string;
}

/** One request over a fresh connection; a reset or any socket error rejects (that is what we test). */
function send(server: HttpServer, method: string, urlPath: string, body?: Buffer | string, auth = true) {
  return new Promise<Reply>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method,
        path: urlPath,
        agent: false,
        headers: {
          Host: `127.0.0.1:${server.port}`,
          'Content-Type': 'application/json',
          ...(auth ? { Authorization: `Bearer ${server.token}` } : {}),
        },
      },
      (r) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (d) => (text += d));
        r.on('end', () => resolve({ status: r.statusCode!, type: r.headers['content-type'], body: text }));
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** A raw socket that writes `data` and then stalls; resolves with what came back and how long until the server closed it. */
function stall(server: HttpServer, data: string, giveUpMs: number) {
  return new Promise<{ closedAfterMs: number | null; received: string }>((resolve) => {
    const started = Date.now();
    const socket = connect(server.port, '127.0.0.1', () => data && socket.write(data));
    sockets.push(socket);
    let received = '';
    socket.on('data', (d) => (received += d));
    socket.on('error', () => {});
    const timer = setTimeout(() => resolve({ closedAfterMs: null, received }), giveUpMs);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ closedAfterMs: Date.now() - started, received });
    });
  });
}

describe('HTTP door limits', () => {
  it('answers malformed percent-encoding with a JSON 400, never a 500', async () => {
    const server = await serve();
    for (const p of ['/api/commands/%', '/api/commands/sessions.list%E0%A4%A', '/%E0%A4%A', '/assets/%zz.js']) {
      const r = await send(server, 'GET', p);
      expect(r.status, p).toBe(400);
      expect(r.type).toContain('application/json');
      expect(JSON.parse(r.body).error).toMatchObject({ code: 'invalid_input', field: 'path' });
      expect(r.body).not.toMatch(/at .*\.ts:\d+/);
    }
    expect((await send(server, 'GET', '/api/commands/%', undefined, false)).status).toBe(401);
    expect((await send(server, 'GET', '/api/commands/sessions.list')).status).toBe(200);
  });

  it('answers a body over the cap with a JSON 413 instead of resetting the connection', async () => {
    const server = await serve({ maxBodyBytes: 1024 });
    const big = Buffer.alloc(256 * 1024, 'a');
    for (let i = 0; i < 3; i++) {
      const r = await send(server, 'POST', '/api/commands/sessions.create', big);
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body).error).toMatchObject({ code: 'invalid_input', field: 'body' });
    }
    // Declared too large up front: refused before a byte of it is read.
    const declared = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: 'POST',
          path: '/api/commands/sessions.create',
          agent: false,
          headers: {
            Host: `127.0.0.1:${server.port}`,
            Authorization: `Bearer ${server.token}`,
            'Content-Type': 'application/json',
            'Content-Length': String(10 * 1024 * 1024),
          },
        },
        (r) => {
          r.resume();
          resolve(r.statusCode!);
          req.destroy();
        },
      );
      req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
      req.write('{"title":"');
    });
    expect(declared).toBe(413);
    // The default cap (5 MB) behaves the same way.
    const defaults = await serve();
    const over = await send(defaults, 'POST', '/api/commands/sessions.create', Buffer.alloc(6 * 1024 * 1024, 'a'));
    expect(over.status).toBe(413);
    // A body within the cap still works.
    expect((await send(server, 'POST', '/api/commands/sessions.create', '{"title":"small"}')).status).toBe(200);
  });

  it('closes connections whose headers or body arrive too slowly', async () => {
    const server = await serve({ headersTimeoutMs: 300, requestTimeoutMs: 600, connectionsCheckingIntervalMs: 50 });
    const host = `Host: 127.0.0.1:${server.port}\r\n`;
    const [idle, slowHeaders, slowBody] = await Promise.all([
      stall(server, '', 5000),
      stall(server, `GET /api/commands/sessions.list HTTP/1.1\r\n${host}`, 5000),
      stall(
        server,
        `POST /api/commands/sessions.create HTTP/1.1\r\n${host}Authorization: Bearer ${server.token}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"ti',
        5000,
      ),
    ]);
    for (const r of [idle, slowHeaders, slowBody]) {
      expect(r.closedAfterMs).not.toBeNull();
      expect(r.closedAfterMs!).toBeLessThan(5000);
    }
    expect(slowBody.received).toContain('408');
  });

  it('caps concurrent connections: one over the cap is closed at once, the others keep working', async () => {
    const server = await serve({ maxConnections: 2, headersTimeoutMs: 20_000, requestTimeoutMs: 30_000 });
    const holders = [0, 1].map(() => {
      const s = connect(server.port, '127.0.0.1', () => s.write('GET /api/commands/sessions.list HTTP/1.1\r\n'));
      s.on('error', () => {});
      sockets.push(s);
      return s;
    });
    await Promise.all(holders.map((s) => new Promise((r) => s.once('connect', r))));
    // Let the server accept both before the third arrives.
    for (let i = 0; i < 100 && (await connectionCount(server)) < 2; i++) await new Promise((r) => setTimeout(r, 10));
    const extra = await stall(server, '', 5000);
    expect(extra.closedAfterMs).not.toBeNull();
    expect(extra.closedAfterMs!).toBeLessThan(5000);
    holders.forEach((s) => s.destroy());
    for (let i = 0; i < 100 && (await connectionCount(server)) > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await send(server, 'GET', '/api/commands/sessions.list')).status).toBe(200);
  });
});

const connectionCount = (server: HttpServer) => server.connections();
