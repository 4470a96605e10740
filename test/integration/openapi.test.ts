import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { tempHome } from '../helpers/home';
import { startServe, type ServeProcess } from '../helpers/serve';
import { commandNames } from '../../src/shared/contract';

type State = Record<string, any>;

/**
 * A valid input for every command, in an order where each finds what it needs (a session, a
 * fact, a citation). Destructive ones come last and act on their own session.
 */
const SAMPLES: [string, (s: State) => unknown][] = [
  ['sessions.create', () => ({ projectId: 'smoke', title: 'smoke' })],
  ['sessions.list', () => ({})],
  ['sessions.get', (s) => ({ sessionId: s.S })],
  ['messages.add', (s) => ({ sessionId: s.S, role: 'user', content: 'We deploy smoke with Docker Compose' })],
  ['messages.list', (s) => ({ sessionId: s.S })],
  ['facts.add', (s) => ({ sessionId: s.S, text: 'Smoke deploys with Docker Compose', scope: 'project' })],
  ['facts.list', () => ({})],
  ['facts.count', () => ({})],
  ['facts.create', () => ({ text: 'Smoke uses Postgres', scope: 'project', scopeKey: 'smoke' })],
  ['facts.get', (s) => ({ factId: s.F })],
  ['facts.update', (s) => ({ factId: s.F, confidence: 'high' })],
  ['facts.pin', (s) => ({ factId: s.F, pinned: true })],
  ['facts.pause', (s) => ({ factId: s.F, paused: false })],
  ['facts.history', (s) => ({ factId: s.F })],
  ['scopes.resolve', (s) => ({ sessionId: s.S })],
  ['scopes.list', () => ({})],
  ['memory.facts', (s) => ({ sessionId: s.S })],
  ['memory.recall', (s) => ({ sessionId: s.S, text: 'how does smoke deploy with docker compose' })],
  ['memory.search', (s) => ({ sessionId: s.S, query: 'docker compose deploys' })],
  ['citations.resolve', (s) => ({ ref: s.ref })],
  ['memory.wiki.list', () => ({})],
  ['memory.wiki.read', () => ({ path: 'USER.md' })],
  ['memory.activity', () => ({})],
  ['turns.begin', (s) => ({ sessionId: s.S, userText: 'How do we deploy smoke?' })],
  ['turns.complete', (s) => ({ sessionId: s.S, assistantText: 'With Docker Compose.', checkpoint: { step: 1 } })],
  ['turns.compact', (s) => ({ sessionId: s.S })],
  ['turns.checkpoint', (s) => ({ sessionId: s.S })],
  ['extraction.status', () => ({})],
  ['extraction.run', (s) => ({ sessionId: s.S })],
  [
    'extraction.retry',
    (s) => {
      failExtraction(s.home, s.S);
      return { sessionId: s.S };
    },
  ],
  ['import.legacy', () => ({})],
  ['wiki.tree', () => ({})],
  ['wiki.read', () => ({ path: 'USER.md' })],
  ['wiki.write', () => ({ path: 'topics/smoke.md', content: '# Smoke\n\nA page.\n' })],
  ['wiki.notes.append', () => ({ content: 'Smoke note' })],
  ['wiki.lint', () => ({})],
  ['wiki.export', (s) => ({ dir: path.join(s.home, 'smoke-export') })],
  ['dream.run', () => ({ drain: false })],
  ['dream.status', () => ({})],
  ['dream.pending', () => ({})],
  ['dream.config.get', () => ({})],
  ['dream.config.set', () => ({ enabled: false })],
  ['system.doctor', () => ({})],
  ['settings.get', () => ({})],
  ['settings.set', () => ({ values: { recall: { enabled: true } } })],
  ['settings.testConnection', () => ({})],
  ['stats.overview', () => ({})],
  ['memory.forget', (s) => ({ sessionId: s.S, factId: s.F, dryRun: true })],
  ['facts.delete', (s) => ({ factId: s.F, dryRun: true })],
  ['wiki.delete', () => ({ path: 'topics/smoke.md' })],
  ['sessions.delete', (s) => ({ sessionId: s.S, dryRun: true })],
  ['memory.forgetSession', (s) => ({ sessionId: s.S })],
];

/** A retry needs a failed cursor: mark the session's one failed, as a failed run would. */
function failExtraction(home: string, sessionId: string): void {
  const db = new Database(path.join(home, 'memory.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(
      "UPDATE memory_extraction_states SET status = 'failed', last_error = 'smoke', next_attempt_at = 0 WHERE session_id = ?",
    ).run(sessionId);
  } finally {
    db.close();
  }
}

/** What a command's answer gives the ones after it. */
function remember(name: string, body: any, state: State): void {
  if (name === 'sessions.create') state.S = body.id;
  if (name === 'facts.add') state.F = body.fact.id;
  if (name === 'memory.recall') state.ref = body.facts?.[0]?.citation?.ref;
}

describe('the HTTP API is described by an OpenAPI 3.1 document generated from the contract', () => {
  const home = tempHome('evoflux-openapi-');
  let serve: ServeProcess;
  let doc: any;
  const auth = () => ({ Authorization: `Bearer ${serve.token}` });

  beforeAll(async () => {
    serve = await startServe(home.dir);
    // The document holds no data: it is served without the token (Host and Origin still apply).
    const r = await fetch(`${serve.url}/api/v1/openapi.json`);
    expect(r.status).toBe(200);
    doc = await r.json();
  });
  afterAll(async () => {
    expect(await serve?.stop()).toBe(0);
    home.cleanup();
  });

  it('is valid OpenAPI 3.1 and names every command', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: serve.url }]);
    const commandPaths = Object.keys(doc.paths).filter((p) => p.startsWith('/api/v1/commands/'));
    expect(commandPaths.map((p) => p.slice('/api/v1/commands/'.length)).sort()).toEqual([...commandNames].sort());
    // The unversioned alias serves the same document.
    expect(await (await fetch(`${serve.url}/api/openapi.json`)).json()).toEqual(doc);
    // No dangling references: every $ref points at a component.
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of new Set(refs)) {
      const [, section, name] = /#\/components\/(\w+)\/(.+)"$/.exec(ref)!;
      expect(doc.components[section!][name!], ref).toBeDefined();
    }
  });

  it('has a smoke call answering on every path, each operation with valid input', async () => {
    const state: State = { home: home.dir };
    const samples = new Map(SAMPLES);
    // A command added after this test was written still gets a call: {} must be answered (200 or a 400 naming a field).
    const order = [...SAMPLES.map(([n]) => n), ...commandNames.filter((n) => !samples.has(n))];
    const answered: string[] = [];
    for (const name of order) {
      const pathItem = doc.paths[`/api/v1/commands/${name}`];
      expect(pathItem, name).toBeDefined();
      const input = samples.get(name)?.(state) ?? {};
      const post = await fetch(`${serve.url}/api/v1/commands/${name}`, {
        method: 'POST',
        headers: { ...auth(), 'Content-Type': 'application/json' },
        body: JSON.stringify(input),
      });
      const body = await post.json();
      if (samples.has(name)) expect(post.status, `${name}: ${JSON.stringify(body)}`).toBe(200);
      else expect([200, 400], `${name}: ${JSON.stringify(body)}`).toContain(post.status);
      remember(name, body, state);
      answered.push(`POST ${name}`);
      if (pathItem.get) {
        const get = await fetch(
          `${serve.url}/api/v1/commands/${name}?input=${encodeURIComponent(JSON.stringify(input))}`,
          { headers: auth() },
        );
        expect(get.status, `GET ${name}`).toBe(post.status);
        answered.push(`GET ${name}`);
      } else {
        const get = await fetch(`${serve.url}/api/v1/commands/${name}`, { headers: auth() });
        expect(get.status, `GET ${name} (mutating)`).toBe(405);
      }
    }
    expect(answered.length).toBeGreaterThan(commandNames.length);

    const health = await fetch(`${serve.url}/api/v1/health`, { headers: auth() });
    expect(health.status).toBe(200);
    expect((await health.json()).ok).toBe(true);
    const events = new AbortController();
    const stream = await fetch(`${serve.url}/api/v1/events`, { headers: auth(), signal: events.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const first = await stream.body!.getReader().read();
    expect(new TextDecoder().decode(first.value)).toContain('event: ready');
    events.abort();
    for (const p of Object.keys(doc.paths)) {
      expect(
        p.startsWith('/api/v1/commands/') || ['/api/v1/health', '/api/v1/events', '/api/v1/openapi.json'].includes(p),
        p,
      ).toBe(true);
    }
  });
});
