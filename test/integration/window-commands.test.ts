import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestEngine, testResources, type TestEngine } from '../helpers/home';
import { ChangeFeed } from '../../src/main/api/change-feed';
import { startHttpServer } from '../../src/main/api/http';
import { dispatch } from '../../src/main/commands/dispatch';
import { OWNER } from '../../src/main/commands/principal';

/**
 * The window's other commands against a real engine: the memory switch, settings (validation,
 * comments kept, the connection test against a loopback endpoint), the wiki's conflict check,
 * the change feed and its HTTP event stream, the overview's figures and Dream's pending list.
 */
const res = testResources();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of closers.splice(0).reverse()) await fn();
  await res.release();
});

const settingsFile = (t: TestEngine) => path.join(t.home, 'settings.yaml');

describe('the memory switch', () => {
  it('recall off: memory.recall and turns.begin inject nothing and say why; on again: facts return', async () => {
    const t = res.engine();
    const s = await t.run('sessions.create', { projectId: 'billing' });
    await t.run('facts.add', { sessionId: s.id, text: 'Billing uses Postgres 16', scope: 'project', kind: 'decision' });
    await t.run('settings.set', { values: { recall: { enabled: false } } });
    const off = await t.run('memory.recall', { sessionId: s.id, text: 'which database does billing use' });
    expect(off).toMatchObject({ facts: [], block: null, abstained: true });
    expect(off.reason).toContain('recall.enabled');
    const turn = await t.run('turns.begin', { sessionId: s.id, userText: 'which database does billing use' });
    expect(turn.context.recall.facts).toEqual([]);
    // memory_search, an explicit lookup, still answers.
    expect(
      (await t.run('memory.search', { sessionId: s.id, query: 'postgres billing' })).results.length,
    ).toBeGreaterThan(0);
    await t.run('settings.set', { values: { recall: { enabled: true } } });
    expect(
      (await t.run('memory.recall', { sessionId: s.id, text: 'which database does billing use' })).facts,
    ).toHaveLength(1);
  });

  it('another process flipping the switch in settings.yaml is noticed by a running engine', async () => {
    const t = res.engine();
    const s = await t.run('sessions.create', { projectId: 'billing' });
    await t.run('facts.add', { sessionId: s.id, text: 'Billing uses Postgres 16', scope: 'project', kind: 'decision' });
    expect((await t.run('memory.recall', { sessionId: s.id, text: 'billing database postgres' })).facts).toHaveLength(
      1,
    );
    // A second engine on the same home (as the CLI would be) saves the switch.
    const other = openTestEngine({ home: t.home });
    closers.push(() => other.engine.close());
    await other.run('settings.set', { values: { recall: { enabled: false } } });
    const off = await t.run('memory.recall', { sessionId: s.id, text: 'billing database postgres' });
    expect(off.reason).toContain('switched off');
  });

  it('extraction off: completed responses no longer start extraction', async () => {
    const t = res.engine();
    await t.run('settings.set', { values: { extraction: { enabled: false, firstAfter: 1 } } });
    const s = await t.run('sessions.create', { projectId: 'billing' });
    await t.run('messages.add', {
      sessionId: s.id,
      role: 'user',
      content: 'We decided to use Postgres 16 for billing.',
    });
    await t.run('messages.add', { sessionId: s.id, role: 'assistant', content: 'Noted.' });
    expect(t.engine.extraction.pending()).toHaveLength(0);
    await t.run('settings.set', { values: { extraction: { enabled: true } } });
    await t.run('messages.add', { sessionId: s.id, role: 'assistant', content: 'Anything else?' });
    expect(t.engine.extraction.pending()).toHaveLength(1);
    await Promise.all(t.engine.extraction.pending());
  });
});

describe('settings.set and settings.get', () => {
  it('saves only the given keys, keeping the comments and every other key, and the engine uses them', async () => {
    const t = res.engine();
    writeFileSync(
      settingsFile(t),
      ['# my settings', 'extraction:', '  retrySweepMs: 0 # no sweeps', 'custom: { kept: true }', ''].join('\n'),
    );
    const r = await t.run('settings.set', {
      values: {
        extraction: { every: 5 },
        llm: { model: 'llama3.2' },
        dream: { schedule: '15 4 * * 1', enabled: true },
      },
    });
    expect(r.values).toMatchObject({
      extraction: { every: 5 },
      llm: { model: 'llama3.2' },
      dream: { schedule: '15 4 * * 1' },
    });
    const text = readFileSync(settingsFile(t), 'utf8');
    expect(text).toContain('# my settings');
    expect(text).toContain('retrySweepMs: 0 # no sweeps');
    expect(text).toContain('custom: { kept: true }');
    expect(text).toMatch(/every: 5/);
    expect(t.engine.settings.extraction.every).toBe(5);
    expect(t.engine.settings.dream).toMatchObject({ enabled: true, schedule: '15 4 * * 1' });
    const got = await t.run('settings.get', {});
    expect(got).toMatchObject({ home: t.home, file: settingsFile(t), fileError: null });
    expect(got.values.llm.apiKey).toBe('none');
    await t.run('settings.set', { values: { llm: { apiKey: 'sk-local-test' } } });
    const withKey = await t.run('settings.get', {});
    expect(withKey.values.llm.apiKey).toBe('settings');
    expect(JSON.stringify(withKey)).not.toContain('sk-local-test');
  });

  it('refuses invalid values naming the field, and writes nothing', async () => {
    const t = res.engine();
    writeFileSync(settingsFile(t), '# untouched\n');
    const cases: [unknown, string][] = [
      [{ llm: { baseUrl: 'ftp://x' } }, 'values.llm.baseUrl'],
      [{ extraction: { firstAfter: 0 } }, 'values.extraction.firstAfter'],
      [{ llm: { maxRetries: 9 } }, 'values.llm.maxRetries'],
      [{ dream: { schedule: 'every night' } }, 'values.dream.schedule'],
      [{ llm: { unknown: 1 } }, 'values.llm.unknown'],
    ];
    for (const [values, field] of cases) {
      await expect(t.run('settings.set', { values } as never)).rejects.toMatchObject({ code: 'invalid_input', field });
    }
    expect(readFileSync(settingsFile(t), 'utf8')).toBe('# untouched\n');
  });

  it('will not rewrite a settings.yaml it cannot parse', async () => {
    const t = res.engine();
    writeFileSync(settingsFile(t), 'llm: [unclosed\n');
    await expect(t.run('settings.set', { values: { recall: { enabled: false } } })).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(readFileSync(settingsFile(t), 'utf8')).toBe('llm: [unclosed\n');
    expect((await t.run('settings.get', {})).fileError).toBeTruthy();
  });
});

/** A loopback OpenAI-compatible endpoint: /v1/models lists `models`; answers `status` when set. */
function endpoint(models: string[], status = 200, key?: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    if (key && req.headers.authorization !== `Bearer ${key}`) {
      res.writeHead(401);
      return void res.end('{}');
    }
    if (req.url !== '/v1/models' || status !== 200) {
      res.writeHead(req.url === '/v1/models' ? status : 404);
      return void res.end('{}');
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model' })) }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      closers.push(() => new Promise<void>((done) => server.close(() => done())));
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server });
    }),
  );
}

describe('settings.testConnection (against servers on 127.0.0.1)', () => {
  it('reports the models, whether the configured one is there, and which setting to fix', async () => {
    const t = res.engine();
    const ok = await endpoint(['llama3.2:latest', 'qwen2.5']);
    expect(await t.run('settings.testConnection', { baseUrl: ok.url, model: 'qwen2.5' })).toMatchObject({
      ok: true,
      status: 200,
      models: ['llama3.2:latest', 'qwen2.5'],
      modelFound: true,
      setting: null,
    });
    // Ollama's "name:tag": the bare name counts.
    expect((await t.run('settings.testConnection', { baseUrl: ok.url, model: 'llama3.2' })).modelFound).toBe(true);
    expect(await t.run('settings.testConnection', { baseUrl: ok.url, model: 'mistral' })).toMatchObject({
      ok: false,
      modelFound: false,
      setting: 'llm.model',
    });
    const locked = await endpoint(['m'], 200, 'right-key');
    expect(await t.run('settings.testConnection', { baseUrl: locked.url, apiKey: 'wrong' })).toMatchObject({
      ok: false,
      status: 401,
      setting: 'llm.apiKey',
    });
    expect((await t.run('settings.testConnection', { baseUrl: locked.url, apiKey: 'right-key', model: 'm' })).ok).toBe(
      true,
    );
    const missing = await endpoint([], 404);
    expect(await t.run('settings.testConnection', { baseUrl: missing.url })).toMatchObject({
      ok: false,
      setting: 'llm.baseUrl',
    });
    // Nothing listening: the address is what to fix.
    const port = (ok.server.address() as AddressInfo).port;
    await new Promise<void>((done) => ok.server.close(() => done()));
    const dead = await t.run('settings.testConnection', { baseUrl: `http://127.0.0.1:${port}/v1` });
    expect(dead).toMatchObject({ ok: false, status: null, setting: 'llm.baseUrl' });
    expect(dead.message).toContain('Check llm.baseUrl');
    // With no address at all, the built-in defaults are in use.
    expect(await t.run('settings.testConnection', {})).toMatchObject({ ok: false, setting: 'llm.baseUrl' });
    await expect(t.run('settings.testConnection', { baseUrl: 'file:///etc/passwd' })).rejects.toMatchObject({
      field: 'baseUrl',
    });
  });
});

describe('wiki writes with a conflict check', () => {
  it('refuses to overwrite a page that changed since it was read, and accepts the current version', async () => {
    const t = res.engine();
    const page = await t.run('wiki.read', { path: 'USER.md' });
    expect(page.version).toMatch(/^sha256:/);
    const mine = page.content.replace('preferences: []', 'preferences:\n  - metric units');
    // Someone else writes it first.
    await t.run('wiki.write', {
      path: 'USER.md',
      content: page.content.replace('identity: {}', 'identity: { name: Ada }'),
    });
    await expect(
      t.run('wiki.write', { path: 'USER.md', content: mine, expectedVersion: page.version }),
    ).rejects.toMatchObject({ code: 'conflict', field: 'expectedVersion' });
    expect((await t.run('wiki.read', { path: 'USER.md' })).content).toContain('name: Ada');
    const fresh = await t.run('wiki.read', { path: 'USER.md' });
    const saved = await t.run('wiki.write', { path: 'USER.md', content: mine, expectedVersion: fresh.version });
    expect(saved.version).toBe((await t.run('wiki.read', { path: 'USER.md' })).version);
    // A new page: 'absent' until someone creates it.
    await t.run('wiki.write', { path: 'topics/new.md', content: '# New\n', expectedVersion: 'absent' });
    await expect(
      t.run('wiki.write', { path: 'topics/new.md', content: '# Again\n', expectedVersion: 'absent' }),
    ).rejects.toMatchObject({ code: 'conflict' });
  });

  it('lists titles in the tree', async () => {
    const t = res.engine();
    await t.run('wiki.write', {
      path: 'entities/pg-3f9a1c.md',
      content: '---\ndescription: x\n---\n# Postgres\n\nBody.\n',
    });
    const tree = await t.run('wiki.tree', {});
    expect(tree.entities).toEqual([expect.objectContaining({ path: 'entities/pg-3f9a1c.md', title: 'Postgres' })]);
  });
});

describe('change feed', () => {
  it('notices writes by this engine, by another connection, to wiki files and to settings.yaml', async () => {
    const t = res.engine();
    const feed = new ChangeFeed(t.engine, 1_000_000);
    closers.push(() => feed.stop());
    expect(feed.poll()).toBeNull();
    expect(feed.poll()).toBeNull();
    await t.run('sessions.create', { projectId: 'a' });
    expect(feed.poll()?.sources).toEqual(['db']);
    // Another process (a raw connection to the same file) commits.
    const other = new Database(t.engine.paths.db);
    other
      .prepare("INSERT INTO sessions (id, kind, created_at, updated_at) VALUES ('from-cli', 'top-level', 1, 1)")
      .run();
    other.close();
    expect(feed.poll()?.sources).toEqual(['db']);
    expect(feed.poll()).toBeNull();
    await t.run('wiki.write', { path: 'topics/x.md', content: '# X\n' });
    expect(feed.poll()?.sources).toEqual(['wiki']);
    writeFileSync(settingsFile(t), 'recall: { enabled: false }\n');
    const settingsEvent = feed.poll();
    expect(settingsEvent?.sources).toEqual(['settings']);
    // The live switch was adopted on the way.
    expect(t.engine.settings.recall.enabled).toBe(false);
  });

  it('streams changes over /api/events to a client with the token, and refuses one without', async () => {
    const t = res.engine();
    const server = await startHttpServer({ engine: t.engine, port: 0, rendererDir: null });
    closers.push(() => server.close());
    const refused = await fetch(`${server.url}/api/events`);
    expect(refused.status).toBe(401);
    const controller = new AbortController();
    closers.push(() => controller.abort());
    const stream = await fetch(`${server.url}/api/events`, {
      headers: { Authorization: `Bearer ${server.token}` },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let received = '';
    const until = async (needle: string) => {
      // Bounded: the feed polls every 400 ms; a handful of reads is plenty.
      for (let i = 0; i < 50 && !received.includes(needle); i++) received += (await reader.read()).value ?? '';
      return received;
    };
    expect(await until('event: ready')).toContain('event: ready');
    // The CLI writes (another connection to the same file).
    await dispatch(t.engine, 'sessions.create', { projectId: 'from-elsewhere' }, OWNER);
    expect(await until('event: changed')).toMatch(/event: changed\ndata: \{"at":\d+,"sources":\["db"\]\}/);
  });
});

describe('overview figures and Dream lists', () => {
  it('counts facts by scope, kind and recall mode, per local day, with extraction runs and the data home size', async () => {
    const t = res.engine();
    t.clock.set(Date.parse('2026-03-10T23:30:00Z'));
    const s = await t.run('sessions.create', { projectId: 'billing' });
    const f = await t.run('facts.add', {
      sessionId: s.id,
      text: 'Billing uses Postgres 16',
      scope: 'project',
      kind: 'decision',
    });
    await t.run('facts.add', { sessionId: s.id, text: 'Prefers concise answers', scope: 'user', kind: 'preference' });
    await t.run('facts.pin', { factId: f.fact.id });
    await t.run('messages.add', { sessionId: s.id, role: 'user', content: 'We decided to deploy on Fridays.' });
    await t.run('extraction.run', { sessionId: s.id });
    t.clock.set(Date.parse('2026-03-11T08:00:00Z'));
    const utc = await t.run('stats.overview', { days: 3 });
    expect(utc.totals).toMatchObject({ facts: 3, sessions: 1, messages: 1 });
    expect(utc.byScope).toEqual([
      { scope: 'project', facts: 2, contexts: 1 },
      { scope: 'user', facts: 1, contexts: 1 },
    ]);
    expect(utc.byKind).toContainEqual({ kind: 'decision', facts: 2 });
    expect(utc.byRecall).toEqual([
      { recall: 'normal', facts: 2 },
      { recall: 'pinned', facts: 1 },
      { recall: 'paused', facts: 0 },
    ]);
    expect(utc.growth.map((g) => [g.day, g.facts, g.factsTotal])).toEqual([
      ['2026-03-09', 0, 0],
      ['2026-03-10', 3, 3],
      ['2026-03-11', 0, 3],
    ]);
    expect(utc.extraction.days[1]).toMatchObject({ day: '2026-03-10', runs: 1, failed: 0, factsStored: 1 });
    // Two hours east of UTC, 23:30 UTC is already the next local day.
    const east = await t.run('stats.overview', { days: 2, utcOffsetMinutes: 120 });
    expect(east.growth.map((g) => [g.day, g.facts])).toEqual([
      ['2026-03-10', 0],
      ['2026-03-11', 3],
    ]);
    expect(utc.storage.databaseBytes).toBeGreaterThan(0);
    expect(utc.storage.totalBytes).toBeGreaterThanOrEqual(utc.storage.databaseBytes + utc.storage.wikiBytes);
    // Forgetting the session takes its run log with it.
    await t.run('sessions.delete', { sessionId: s.id });
    expect(t.engine.db.prepare('SELECT count(*) AS n FROM memory_extraction_runs').get()).toEqual({ n: 0 });
  });

  it('lists what Dream will consolidate and the pages its last runs wrote', async () => {
    const t = res.engine();
    const s = await t.run('sessions.create', { projectId: 'billing', title: 'Database choice' });
    await t.run('messages.add', { sessionId: s.id, role: 'user', content: 'Use Postgres 16.' });
    await t.run('wiki.notes.append', { content: 'Remember the upgrade window.' });
    const pending = await t.run('dream.pending', {});
    expect(pending.sessions).toEqual([{ id: s.id, title: 'Database choice', createdAt: s.createdAt, reason: 'new' }]);
    expect(pending.totalSessions).toBe(1);
    expect(pending.notes).toHaveLength(1);
    const run = await t.run('dream.run', { drain: true });
    const status = await t.run('dream.status', {});
    expect(status.lastRuns[0]).toMatchObject({ sessions: 1, notes: 1, failed: 0, pagesWritten: run.pagesWritten });
    expect(status.lastRuns[0]!.pages).toEqual(expect.arrayContaining(['INDEX.md', 'LINT.md']));
    // Source pages are only counted in LOG.md (append-only): their names carry part of a session id.
    expect(status.lastRuns[0]!.pages.some((p) => p.startsWith('sources/session-'))).toBe(false);
    expect(readFileSync(path.join(t.home, 'wiki', 'LOG.md'), 'utf8')).toMatch(/- pages: .*1 session source page/);
    expect((await t.run('dream.pending', {})).sessions).toEqual([]);
    t.clock.advance(1000);
    await t.run('messages.add', { sessionId: s.id, role: 'user', content: 'And back it up nightly.' });
    expect((await t.run('dream.pending', {})).sessions[0]!.reason).toBe('messages');
  });
});
