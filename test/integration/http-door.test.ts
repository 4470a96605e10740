import { request } from 'node:http';
import { statSync, readFileSync, writeFileSync, chmodSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestEngine, tempHome, type TestEngine } from '../helpers/home';
import { startHttpServer, type HttpServer } from '../../src/main/api/http';
import { ensureHttpToken } from '../../src/main/api/http-token';
import { RENDERER_CSP_HEADER } from '../../src/main/api/csp';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): any;
}

/** A raw request, so the test controls the Host header exactly (fetch would not let it). */
function send(
  port: number,
  method: string,
  urlPath: string,
  opts: { headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path: urlPath, headers: { Host: `127.0.0.1:${port}`, ...opts.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body, json: () => JSON.parse(body) }),
        );
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

describe('HTTP door', () => {
  let t: TestEngine;
  let server: HttpServer;
  let renderer: string;
  const auth = () => ({ Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' });
  const post = (name: string, input: unknown, headers: Record<string, string> = auth()) =>
    send(server.port, 'POST', `/api/commands/${name}`, { headers, body: JSON.stringify(input) });

  beforeAll(async () => {
    t = openTestEngine();
    renderer = path.join(t.home, 'renderer-fixture');
    mkdirSync(path.join(renderer, 'assets'), { recursive: true });
    writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>x</title>');
    writeFileSync(path.join(renderer, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(path.join(renderer, 'assets', 'app.css'), 'body{}');
    writeFileSync(path.join(t.home, 'secret.txt'), 'do not serve');
    server = await startHttpServer({ engine: t.engine, port: 0, rendererDir: renderer });
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
  });

  it('creates a 0600 token file in the home and reuses it', () => {
    const file = path.join(t.home, 'http-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(server.token);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(ensureHttpToken(file)).toBe(server.token);
    expect(server.browserUrl).toBe(`http://127.0.0.1:${server.port}/#token=${server.token}`);
  });

  it('runs contract commands through dispatch', async () => {
    const created = await post('sessions.create', { projectId: 'p1', title: 'over http' });
    expect(created.status).toBe(200);
    const session = created.json();
    expect(session).toMatchObject({ kind: 'top-level', projectId: 'p1', title: 'over http' });
    const added = await post('facts.add', {
      sessionId: session.id,
      text: 'HTTP facts land',
      scope: 'project',
      kind: 'decision',
    });
    expect(added.status).toBe(200);
    expect(added.json()).toMatchObject({ created: true, fact: { scope: 'project', scopeKey: 'p1' } });
    const listed = await post('facts.list', { scope: 'project', scopeKey: 'p1' });
    expect(listed.json().facts.map((f: { text: string }) => f.text)).toEqual(['HTTP facts land']);
    const viaGet = await send(
      server.port,
      'GET',
      `/api/commands/facts.list?input=${encodeURIComponent(JSON.stringify({ scope: 'project', scopeKey: 'p1' }))}`,
      {
        headers: { Authorization: `Bearer ${server.token}` },
      },
    );
    expect(viaGet.status).toBe(200);
    expect(viaGet.json().facts).toHaveLength(1);
  });

  it('refuses a missing or wrong token with 401 and changes nothing', async () => {
    const none = await post('sessions.create', { title: 'sneaky' }, { 'Content-Type': 'application/json' });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect(none.json().error).toMatchObject({ code: 'unauthorized', field: 'authorization' });
    const wrong = await post(
      'sessions.create',
      { title: 'sneaky' },
      { Authorization: `Bearer ${'x'.repeat(43)}`, 'Content-Type': 'application/json' },
    );
    expect(wrong.status).toBe(401);
    const almost = await post(
      'sessions.create',
      { title: 'sneaky' },
      { Authorization: server.token, 'Content-Type': 'application/json' },
    );
    expect(almost.status).toBe(401);
    const list = await post('sessions.list', {});
    expect(list.json().sessions.some((s: { title: string }) => s.title === 'sneaky')).toBe(false);
  });

  it('checks the Host header (DNS rebinding) before anything else', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${server.port}`,
      `127.0.0.1:${server.port + 1}`,
      '127.0.0.1',
      `[::1]:${server.port}`,
    ]) {
      const r = await send(server.port, 'POST', '/api/commands/sessions.list', {
        headers: { ...auth(), Host: host },
        body: '{}',
      });
      expect(r.status, host).toBe(403);
      expect(r.json().error.field).toBe('host');
      const page = await send(server.port, 'GET', '/', { headers: { Host: host } });
      expect(page.status, host).toBe(403);
    }
    const local = await send(server.port, 'POST', '/api/commands/sessions.list', {
      headers: { ...auth(), Host: `localhost:${server.port}` },
      body: '{}',
    });
    expect(local.status).toBe(200);
  });

  it('answers bad input with 400 naming the field', async () => {
    const badScope = await post('facts.list', { scope: 'galaxy' });
    expect(badScope.status).toBe(400);
    expect(badScope.json().error).toMatchObject({ code: 'invalid_input', field: 'scope' });
    const unknownField = await post('facts.list', { colour: 'red' });
    expect(unknownField.status).toBe(400);
    expect(unknownField.json().error.field).toBe('colour');
    const badJson = await send(server.port, 'POST', '/api/commands/facts.list', { headers: auth(), body: '{not json' });
    expect(badJson.status).toBe(400);
    expect(badJson.json().error.field).toBe('body');
    const form = await send(server.port, 'POST', '/api/commands/sessions.create', {
      headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'title=x',
    });
    expect(form.status).toBe(400);
    expect(form.json().error.field).toBe('content-type');
    const mutatingGet = await send(server.port, 'GET', '/api/commands/sessions.create', {
      headers: { Authorization: `Bearer ${server.token}` },
    });
    expect(mutatingGet.status).toBe(405);
    expect(mutatingGet.headers.allow).toBe('POST');
    expect(mutatingGet.json().error).toMatchObject({ code: 'invalid_input', field: 'method' });
    const deleteHealth = await send(server.port, 'DELETE', '/api/health', { headers: auth() });
    expect(deleteHealth.status).toBe(405);
    expect(deleteHealth.headers.allow).toBe('GET');
    const putEvents = await send(server.port, 'PUT', '/api/v1/events', { headers: auth(), body: '{}' });
    expect(putEvents.status).toBe(405);
  });

  it('serves version 1 under /api/v1 and keeps the unversioned paths as aliases', async () => {
    const versioned = await send(server.port, 'POST', '/api/v1/commands/sessions.list', {
      headers: auth(),
      body: '{}',
    });
    expect(versioned.status).toBe(200);
    expect(versioned.headers['api-version']).toBe('1');
    const alias = await post('sessions.list', {});
    expect(alias.status).toBe(200);
    expect(alias.headers['api-version']).toBe('1');
    expect(alias.json()).toEqual(versioned.json());
    const health = await send(server.port, 'GET', '/api/v1/health', { headers: auth() });
    expect(health.status).toBe(200);
  });

  it('answers busy (a lease another process holds) with 503 and Retry-After', async () => {
    const session = (await post('sessions.create', { title: 'leased' })).json();
    t.engine.db
      .prepare(
        `INSERT INTO memory_extraction_states (session_id, status, lease_owner, lease_expires_at, pending_response_count,
           pending_cursor_seq, attempts, updated_at) VALUES (?, 'processing', 'elsewhere', ?, 0, 0, 1, ?)`,
      )
      .run(session.id, t.clock.now() + 60_000, t.clock.now());
    const busy = await post('extraction.run', { sessionId: session.id });
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.json().error).toMatchObject({ code: 'busy', field: 'sessionId' });
  });

  it('refuses requests from other origins (a page elsewhere in a browser)', async () => {
    for (const origin of ['https://evil.example', `http://127.0.0.1:${server.port + 1}`, 'null']) {
      const r = await send(server.port, 'POST', '/api/commands/sessions.list', {
        headers: { ...auth(), Origin: origin },
        body: '{}',
      });
      expect(r.status, origin).toBe(403);
      expect(r.json().error.field).toBe('origin');
    }
    const own = await send(server.port, 'POST', '/api/commands/sessions.list', {
      headers: { ...auth(), Origin: `http://localhost:${server.port}` },
      body: '{}',
    });
    expect(own.status).toBe(200);
  });

  it('maps unknown commands, records and routes to 404', async () => {
    const cmd = await post('nope.nothing', {});
    expect(cmd.status).toBe(404);
    expect(cmd.json().error).toMatchObject({ code: 'not_found', field: 'command' });
    const fact = await post('facts.get', { factId: 'no-such-fact' });
    expect(fact.status).toBe(404);
    expect(fact.json().error.field).toBe('factId');
    const route = await send(server.port, 'GET', '/api/elsewhere', { headers: auth() });
    expect(route.status).toBe(404);
    const file = await send(server.port, 'GET', '/missing.js');
    expect(file.status).toBe(404);
  });

  it('serves the renderer with content types, CSP and no path traversal', async () => {
    const index = await send(server.port, 'GET', '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['content-security-policy']).toBe(RENDERER_CSP_HEADER);
    expect(index.headers['cache-control']).toBe('no-store');
    expect(index.headers['x-frame-options']).toBe('DENY');
    // The token is never in the page: it travels in the URL fragment only.
    expect(index.body).not.toContain(server.token);
    expect((await send(server.port, 'GET', '/assets/app.js')).headers['content-type']).toBe(
      'text/javascript; charset=utf-8',
    );
    expect((await send(server.port, 'GET', '/assets/app.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/..%5csecret.txt']) {
      const r = await send(server.port, 'GET', p);
      expect(r.status, p).toBe(404);
      expect(r.body).not.toContain('do not serve');
    }
  });

  it('says how to build when the renderer is missing', async () => {
    const bare = await startHttpServer({ engine: t.engine, port: 0, rendererDir: null });
    try {
      const r = await send(bare.port, 'GET', '/');
      expect(r.status).toBe(503);
      expect(r.body).toContain('npm run build');
    } finally {
      await bare.close();
    }
  });

  it('reports a port in use as a clear error', async () => {
    await expect(startHttpServer({ engine: t.engine, port: server.port, rendererDir: null })).rejects.toMatchObject({
      code: 'unavailable',
      field: 'port',
    });
  });
});

describe('http-token file', () => {
  it('replaces a malformed token and tightens loose permissions', () => {
    const home = tempHome();
    try {
      const file = path.join(home.dir, 'http-token');
      writeFileSync(file, 'short\n', { mode: 0o644 });
      const token = ensureHttpToken(file);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      chmodSync(file, 0o644);
      expect(ensureHttpToken(file)).toBe(token);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(home.dir, { recursive: true, force: true });
    }
  });
});
