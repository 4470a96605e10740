import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources } from '../helpers/home';
import { connectHttpMcp } from '../helpers/mcp-http';
import { startHttpServer, type HttpServer } from '../../src/main/api/http';
import { defaultSettings } from '../../src/main/settings';
import { readHttpServerInfo } from '../../src/main/api/http-discovery';

const res = testResources();
const servers: HttpServer[] = [];
const endpoints: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close({ drainMs: 0 });
  for (const e of endpoints.splice(0)) await new Promise((r) => e.close(r));
  await res.release();
});

const IDLE_MS = 60_000;
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

async function serve(options: { maxSessions?: number; settings?: ReturnType<typeof defaultSettings> } = {}) {
  const t = res.engine(options.settings ? { settings: options.settings } : {});
  const server = await startHttpServer({
    engine: t.engine,
    port: 0,
    rendererDir: null,
    announceAs: 'test',
    mcpLimits: { idleMs: IDLE_MS, maxSessions: options.maxSessions ?? 16 },
  });
  servers.push(server);
  return { t, server };
}

/** An initialize over plain fetch: a client that never opens the notice stream. */
async function rawSession(
  server: HttpServer,
): Promise<{ status: number; id: string | null; retryAfter: string | null }> {
  const r = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: { ...MCP_HEADERS, Authorization: `Bearer ${server.token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    }),
  });
  await r.text();
  return { status: r.status, id: r.headers.get('mcp-session-id'), retryAfter: r.headers.get('retry-after') };
}

const listTools = (server: HttpServer, sessionId: string) =>
  fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      ...MCP_HEADERS,
      Authorization: `Bearer ${server.token}`,
      'Mcp-Session-Id': sessionId,
      'Mcp-Protocol-Version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });

describe('MCP sessions over HTTP', () => {
  it('closes a session idle past the limit (by the injected clock), keeps a client that listens', async () => {
    const { t, server } = await serve();
    const idle = await rawSession(server);
    expect(idle.status).toBe(200);
    const listening = await connectHttpMcp(server.url, server.token);
    // The SDK client holds its notice stream (GET) open once initialized.
    await expect.poll(() => server.mcpSessions()).toEqual({ open: 2, listening: 1 });
    t.clock.advance(IDLE_MS - 1);
    expect(server.sweepIdleMcpSessions()).toBe(0);
    t.clock.advance(2);
    expect(server.sweepIdleMcpSessions()).toBe(1);
    expect((await listTools(server, idle.id!)).status).toBe(404);
    expect((await listening.client.listTools()).tools.length).toBeGreaterThan(10);
    expect(server.mcpSessions()).toEqual({ open: 1, listening: 1 });
    await listening.close();
  });

  it('refuses sessions past the cap with 503 and Retry-After', async () => {
    const { server } = await serve({ maxSessions: 2 });
    expect((await rawSession(server)).status).toBe(200);
    expect((await rawSession(server)).status).toBe(200);
    const third = await rawSession(server);
    expect(third).toMatchObject({ status: 503, id: null, retryAfter: '30' });
  });

  it('says where it listens in http-server.json while it runs', async () => {
    const { t, server } = await serve();
    const info = readHttpServerInfo(t.engine.paths.httpServer);
    expect(info).toMatchObject({
      url: server.url,
      mcpUrl: `${server.url}/mcp`,
      port: server.port,
      pid: process.pid,
      by: 'test',
      tokenFile: t.engine.paths.httpToken,
    });
    expect(JSON.stringify(info)).not.toContain(server.token);
    await server.close();
    expect(readHttpServerInfo(t.engine.paths.httpServer)).toBeNull();
  });

  it('lets a call in flight finish on shutdown, refusing new work meanwhile', async () => {
    // A model endpoint that holds the compaction request until the test lets it go.
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const endpoint = http.createServer((req, reply) => {
      req.resume();
      req.on('end', async () => {
        received();
        await released;
        reply.writeHead(200, { 'content-type': 'application/json' });
        reply.end(
          JSON.stringify({ choices: [{ message: { content: JSON.stringify({ summary: 'Held summary.' }) } }] }),
        );
      });
    });
    endpoints.push(endpoint);
    await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
    const settings = defaultSettings();
    settings.extraction = { ...settings.extraction, enabled: false };
    settings.llm = {
      ...settings.llm,
      baseUrl: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/v1`,
      model: 'test-model',
      maxRetries: 0,
      timeoutMs: 60_000,
    };
    const { server } = await serve({ settings });
    const mcp = await connectHttpMcp(server.url, server.token);
    const s = (await mcp.call('memory_create_session', {})).id;
    for (let i = 1; i <= 4; i++) {
      await mcp.call('memory_begin_turn', { sessionId: s, userText: `question ${i} about sharding` });
      await mcp.call('memory_complete_turn', { sessionId: s, assistantText: `answer ${i} about sharding` });
    }
    const compact = mcp.call('memory_compact_context', { sessionId: s, keepLastTurns: 1 });
    await arrived;
    const closing = server.close({ drainMs: 60_000 });
    // New work is refused while the call in flight runs (a new connection is not even accepted).
    const late = await fetch(`${server.url}/api/commands/sessions.list`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
      body: '{}',
    }).then(
      (r) => r.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(late);
    release();
    expect(await compact).toMatchObject({ summarizer: 'model', summary: { content: 'Held summary.' } });
    await closing;
    expect(server.mcpSessions().open).toBe(0);
    await mcp.close().catch(() => {});
  });
});
