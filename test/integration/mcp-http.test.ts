import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError, ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tempHome } from '../helpers/home';
import { startServe, type ServeProcess } from '../helpers/serve';
import { connectHttpMcp, type HttpMcpSession } from '../helpers/mcp-http';
import { errorMeta, errorText } from '../helpers/mcp';
import { availableTools } from '../../src/main/api/mcp';

/** A raw request, so the test sets Host, Origin and Authorization exactly as an attacker could. */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const { port, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(port),
        method,
        path: `/mcp${search}`,
        headers: { Host: `127.0.0.1:${port}`, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

/** Every text of a tool result, joined. */
const textOf = (r: CallToolResult) => (r.content as { text?: string }[]).map((c) => c.text ?? '').join('\n');

describe('MCP over Streamable HTTP from `serve` (real SDK clients, spawned CLI)', () => {
  const home = tempHome('evoflux-mcp-http-');
  let serve: ServeProcess;
  let alpha: HttpMcpSession;
  let bravo: HttpMcpSession;
  let A: string;
  let B: string;

  beforeAll(async () => {
    serve = await startServe(home.dir);
    // Pages Dream would write, confined by their scopes, plus one written by hand (unscoped).
    const page = (scopes: string, title: string) =>
      `---\ndescription: ${title}\nscopes: [${scopes}]\n---\n# ${title}\n\nNotes about ${title}.\n`;
    for (const [p, content] of [
      ['topics/alpha-deploys.md', page('project:alpha', 'Alpha deploys')],
      ['topics/bravo-secrets.md', page('project:bravo', 'Bravo secrets')],
      ['topics/shared.md', '# Shared conventions\n\nEveryone uses UTC.\n'],
    ]) {
      expect((await serve.call('wiki.write', { path: p, content })).status).toBe(200);
    }
    [alpha, bravo] = await Promise.all([
      connectHttpMcp(serve.url, serve.token, { project: ['alpha'] }),
      connectHttpMcp(serve.url, serve.token, { project: ['bravo'] }),
    ]);
    A = (await alpha.call('memory_create_session', { title: 'Alpha work' })).id;
    B = (await bravo.call('memory_create_session', { title: 'Bravo work' })).id;
  });
  afterAll(async () => {
    await Promise.allSettled([alpha?.close(), bravo?.close()]);
    expect(await serve?.stop()).toBe(0);
    home.cleanup();
  });

  it('initializes a session with tools, resources and prompts, under the package version', async () => {
    const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
    expect(alpha.client.getServerVersion()).toMatchObject({ name: 'evoflux-memory', version: pkg.version });
    expect(alpha.client.getServerCapabilities()).toMatchObject({
      tools: {},
      resources: { subscribe: true, listChanged: true },
      prompts: {},
    });
    expect(alpha.transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(bravo.transport.sessionId).not.toBe(alpha.transport.sessionId);
    expect(alpha.client.getInstructions()).toContain('memory_create_session');
  });

  it('lists the same tools as stdio, every input property described', async () => {
    const { tools } = await alpha.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      availableTools()
        .map((t) => t.name)
        .sort(),
    );
    for (const added of [
      'memory_forget_session',
      'memory_read_wiki_page',
      'memory_list_wiki_pages',
      'memory_recent_activity',
    ]) {
      expect(tools.map((t) => t.name)).toContain(added);
    }
    const undescribed: string[] = [];
    for (const tool of tools) {
      for (const [key, property] of Object.entries<any>(tool.inputSchema.properties ?? {})) {
        if (!property.description?.trim()) undescribed.push(`${tool.name}.${key}`);
      }
    }
    expect(undescribed).toEqual([]);
    const remember = tools.find((t) => t.name === 'memory_remember')!;
    expect((remember.inputSchema.properties as any).scope.examples).toContain('project');
  });

  it('answers every tool (each called once with valid input)', async () => {
    const called = new Set<string>();
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await alpha.raw(name, args);
      expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
      called.add(name);
      return r.structuredContent as any;
    };
    const S = (await call('memory_create_session', { title: 'Every tool' })).id;
    await call('memory_begin_turn', { sessionId: S, userText: 'We deploy alpha with Docker Compose.' });
    await call('memory_complete_turn', { sessionId: S, assistantText: 'Noted.', checkpoint: { step: 1 } });
    await call('memory_compact_context', { sessionId: S });
    expect((await call('memory_get_checkpoint', { sessionId: S })).checkpoint).toEqual({ step: 1 });
    const fact = (
      await call('memory_remember', { sessionId: S, text: 'Alpha deploys with Docker Compose', scope: 'project' })
    ).fact;
    const batch = await call('memory_remember_batch', {
      sessionId: S,
      facts: [{ text: 'Alpha deploys with Docker Compose', scope: 'project' }, { text: 'Alpha logs go to Loki' }],
    });
    expect(batch).toMatchObject({ created: 1, unchanged: 1 });
    expect(batch.results[0].id).toBe(fact.id);
    await call('memory_recall', { sessionId: S, text: 'how does alpha deploy with docker compose' });
    await call('memory_search', { sessionId: S, query: 'docker compose deploys' });
    expect((await call('memory_list_facts', { sessionId: S })).facts.map((f: any) => f.id)).toContain(fact.id);
    await call('memory_session_scopes', { sessionId: S });
    await call('memory_extraction_status', { sessionId: S });
    await call('memory_dream_status', {});
    await call('memory_run_dream', { drain: false });
    const pages = (await call('memory_list_wiki_pages', { sessionId: S })).pages.map((p: any) => p.path);
    expect(pages).toEqual(expect.arrayContaining(['USER.md', 'topics/alpha-deploys.md', 'topics/shared.md']));
    expect(pages).not.toContain('topics/bravo-secrets.md');
    expect((await call('memory_read_wiki_page', { sessionId: S, path: 'topics/alpha-deploys.md' })).title).toBe(
      'Alpha deploys',
    );
    const activity = await call('memory_recent_activity', { sessionId: S });
    expect(activity.sessions.map((s: any) => s.id)).toContain(S);
    expect(activity.facts.map((f: any) => f.id)).toContain(fact.id);
    await call('memory_forget_fact', { sessionId: S, factId: fact.id, dryRun: true });
    const plan = await call('memory_forget_session', { sessionId: S });
    expect(plan).toMatchObject({ dryRun: true, sessionIds: [S] });
    const done = await call('memory_forget_session', { sessionId: S, confirm: plan.confirmToken });
    expect(done).toMatchObject({ dryRun: false, confirmToken: null, sessionIds: [S] });
    expect(called.size).toBe(availableTools().length);
  });

  it('lists and reads resources as the connection sees them, and refuses the rest', async () => {
    const { resources } = await alpha.client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        'memory://wiki/USER.md',
        'memory://wiki/topics/alpha-deploys.md',
        'memory://wiki/topics/shared.md',
        'memory://activity',
        `memory://facts/${A}`,
      ]),
    );
    expect(uris.some((u) => u.includes('bravo') || u.includes(B))).toBe(false);
    for (const uri of uris) {
      const { contents } = await alpha.client.readResource({ uri });
      expect(contents[0]).toMatchObject({ uri });
      expect((contents[0] as { text: string }).text.length, uri).toBeGreaterThan(0);
    }
    const { resourceTemplates } = await alpha.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['memory://wiki/{path}', 'memory://facts/{sessionId}']);
    // Filled in by a client from the template, with the slash encoded: the same page.
    const encoded = await alpha.client.readResource({ uri: 'memory://wiki/topics%2Falpha-deploys.md' });
    expect((encoded.contents[0] as { text: string }).text).toContain('Alpha deploys');
    for (const uri of [
      'memory://wiki/topics/bravo-secrets.md',
      `memory://facts/${B}`,
      'memory://wiki/LOG.md',
      'memory://nope',
    ]) {
      const e = await alpha.client.readResource({ uri }).catch((x) => x);
      expect(e, uri).toBeInstanceOf(McpError);
      expect((e as McpError).code, uri).toBe(-32002);
    }
  });

  it('offers prompts for the common flows', async () => {
    const { prompts } = await alpha.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['recall_about', 'catch_up', 'forget_session']);
    const recall = await alpha.client.getPrompt({ name: 'recall_about', arguments: { topic: 'deploys' } });
    expect((recall.messages[0]!.content as { text: string }).text).toContain('memory_search');
    await expect(alpha.client.getPrompt({ name: 'forget_session', arguments: {} })).rejects.toThrow(/sessionId/);
  });

  it('tells a subscribed client when the facts it reads change, whoever wrote them', async () => {
    const uri = `memory://facts/${A}`;
    let updated: () => void;
    const seen = new Promise<void>((resolve) => (updated = resolve));
    alpha.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      if (n.params.uri === uri) updated();
    });
    await alpha.client.subscribeResource({ uri });
    // The owner writes through the JSON API: another door, same home.
    const added = await serve.call('facts.add', {
      sessionId: A,
      text: 'Alpha freezes deploys on Fridays',
      scope: 'project',
    });
    expect(added.status).toBe(200);
    await seen;
    await alpha.client.unsubscribeResource({ uri });
  });

  it('confines two clients at once to their own contexts', async () => {
    await Promise.all([
      alpha.call('memory_remember', { sessionId: A, text: 'Alpha codename is Nightjar', scope: 'project' }),
      bravo.call('memory_remember', { sessionId: B, text: 'Bravo codename is Kestrel', scope: 'project' }),
    ]);
    const [alphaSees, bravoSees] = await Promise.all([
      alpha.call('memory_list_facts', { sessionId: A, limit: 200 }),
      bravo.call('memory_list_facts', { sessionId: B, limit: 200 }),
    ]);
    expect(JSON.stringify(alphaSees)).toContain('Nightjar');
    expect(JSON.stringify(alphaSees)).not.toContain('Kestrel');
    expect(JSON.stringify(bravoSees)).toContain('Kestrel');
    expect(JSON.stringify(bravoSees)).not.toContain('Nightjar');
    // The other's session id, learned somehow, opens nothing, in any tool.
    for (const [tool, args] of [
      ['memory_list_facts', { sessionId: B }],
      ['memory_forget_session', { sessionId: B }],
      ['memory_recent_activity', { sessionId: B }],
      ['memory_read_wiki_page', { sessionId: B, path: 'topics/bravo-secrets.md' }],
    ] as const) {
      const r = await alpha.raw(tool, args);
      expect(r.isError, tool).toBe(true);
      expect(errorMeta(r), tool).toMatchObject({ code: 'not_found', field: 'sessionId' });
    }
    const page = await alpha.raw('memory_read_wiki_page', { sessionId: A, path: 'topics/bravo-secrets.md' });
    expect(errorMeta(page)).toMatchObject({ code: 'not_found', field: 'path' });
    const activity = await bravo.call('memory_recent_activity', { sessionId: B });
    expect(activity.sessions.map((s: any) => s.id)).toEqual([B]);
    const whole = await bravo.client.readResource({ uri: 'memory://activity' });
    const listed = JSON.parse((whole.contents[0] as { text: string }).text);
    expect(listed.sessions.map((s: any) => s.id)).toEqual([B]);
    expect(JSON.stringify(listed)).not.toContain('Nightjar');
    const created = await alpha.raw('memory_create_session', { projectId: 'bravo' });
    expect(errorMeta(created)).toMatchObject({ code: 'invalid_input', field: 'projectId' });
  });

  it('answers an oversized call with an error result and keeps serving', async () => {
    const r = await alpha.raw('memory_begin_turn', { sessionId: A, userText: 'x'.repeat(12 * 1024 * 1024) });
    expect(r.isError).toBe(true);
    expect(errorText(r)).toMatch(
      /^invalid_input: request too large: 12,58\d,\d{3} bytes; this server accepts at most 8,388,608 bytes/,
    );
    expect(errorMeta(r)).toMatchObject({ code: 'invalid_input', field: 'request' });
    const after = await alpha.call('memory_begin_turn', { sessionId: A, userText: 'Still there?' });
    expect(after.userMessage.content).toBe('Still there?');
    // Without a session, the same bound: a 413 with a JSON-RPC error, and nothing is started.
    const big = await send(
      serve.url,
      'POST',
      { ...MCP_HEADERS, Authorization: `Bearer ${serve.token}` },
      `{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"pad":"${'y'.repeat(9 * 1024 * 1024)}"}}`,
    );
    expect(big.status).toBe(413);
    expect(JSON.parse(big.text)).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32600 } });
  });

  it('refuses a wrong Host, a foreign Origin and a missing or wrong token', async () => {
    const auth = { Authorization: `Bearer ${serve.token}` };
    const port = new URL(serve.url).port;
    const wrongHost = await send(
      serve.url,
      'POST',
      { ...MCP_HEADERS, ...auth, Host: `evil.example:${port}` },
      INITIALIZE,
    );
    expect(wrongHost.status).toBe(403);
    expect(JSON.parse(wrongHost.text).error.field).toBe('host');
    const wrongOrigin = await send(
      serve.url,
      'POST',
      { ...MCP_HEADERS, ...auth, Origin: 'https://evil.example' },
      INITIALIZE,
    );
    expect(wrongOrigin.status).toBe(403);
    expect(JSON.parse(wrongOrigin.text).error.field).toBe('origin');
    const noToken = await send(serve.url, 'POST', MCP_HEADERS, INITIALIZE);
    expect(noToken.status).toBe(401);
    expect(noToken.headers['www-authenticate']).toBe('Bearer');
    expect(JSON.parse(noToken.text).error.code).toBe('unauthorized');
    const wrongToken = await send(
      serve.url,
      'POST',
      { ...MCP_HEADERS, Authorization: `Bearer ${'x'.repeat(43)}` },
      INITIALIZE,
    );
    expect(wrongToken.status).toBe(401);
    // The SDK client sees the same refusal.
    await expect(connectHttpMcp(serve.url, 'not-the-token')).rejects.toThrow();
    const badContext = await send(serve.url + '?project=', 'POST', { ...MCP_HEADERS, ...auth }, INITIALIZE);
    expect(badContext.status).toBe(400);
  });

  it('refuses a context parameter that is not valid, naming it', async () => {
    const r = await fetch(`${serve.url}/mcp?workspace=relative/path`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, Authorization: `Bearer ${serve.token}` },
      body: INITIALIZE,
    });
    expect(r.status).toBe(400);
    const body = await r.json();
    expect(body.error.message).toMatch(/workspace URL parameter: must be an absolute path/);
  });

  it('ends a session on DELETE; its id then answers 404', async () => {
    const c = await connectHttpMcp(serve.url, serve.token, { project: ['gamma'] });
    const id = c.transport.sessionId!;
    await c.transport.terminateSession();
    const after = await send(
      serve.url,
      'POST',
      { ...MCP_HEADERS, Authorization: `Bearer ${serve.token}`, 'Mcp-Session-Id': id },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    expect(after.status).toBe(404);
    expect(JSON.parse(after.text).error.code).toBe(-32001);
    await c.close();
  });
});
