import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { handleIpcCall, isOwnPage } from '../../src/main/api/ipc';
import { RENDERER_CSP_HEADER, RENDERER_CSP_META } from '../../src/main/api/csp';

const PAGE = 'file:///opt/evoflux/out/renderer/index.html';

describe('IPC door', () => {
  let t: TestEngine;
  beforeAll(() => void (t = openTestEngine()));
  afterAll(() => t.close());

  it('accepts only our own page as sender', () => {
    expect(isOwnPage(`${PAGE}#/facts`, PAGE)).toBe(true);
    expect(isOwnPage('file:///tmp/evil.html', PAGE)).toBe(false);
    expect(isOwnPage('https://example.com/', PAGE)).toBe(false);
    expect(isOwnPage(undefined, PAGE)).toBe(false);
    expect(isOwnPage('not a url', PAGE)).toBe(false);
    expect(isOwnPage('http://localhost:5173/#/x', 'http://localhost:5173/')).toBe(true);
    expect(isOwnPage('http://localhost:5174/', 'http://localhost:5173/')).toBe(false);
  });

  it('dispatches valid calls and returns errors as values naming the field', async () => {
    const ok = await handleIpcCall(t.engine, PAGE, PAGE, 'sessions.create', { title: 'ipc' });
    expect(ok).toMatchObject({ ok: true, value: { title: 'ipc' } });
    const bad = await handleIpcCall(t.engine, PAGE, PAGE, 'facts.list', { scope: 'nowhere' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input', field: 'scope' } });
    const unknown = await handleIpcCall(t.engine, PAGE, PAGE, 'rm.rf', {});
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found', field: 'command' } });
    const notString = await handleIpcCall(t.engine, PAGE, PAGE, 42, {});
    expect(notString).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('refuses a foreign sender before running anything', async () => {
    const r = await handleIpcCall(t.engine, 'https://evil.example/', PAGE, 'sessions.create', { title: 'foreign' });
    expect(r).toMatchObject({ ok: false, error: { code: 'forbidden', field: 'sender' } });
    const list = await t.run('sessions.list', {});
    expect(list.sessions.map((s) => s.title)).not.toContain('foreign');
  });
});

describe('renderer CSP', () => {
  it('is the same in index.html and the headers, and strict', () => {
    const html = readFileSync(path.resolve(__dirname, '../../src/renderer/index.html'), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    expect(meta).toBe(RENDERER_CSP_META);
    expect(RENDERER_CSP_HEADER).toBe(`${RENDERER_CSP_META}; frame-ancestors 'none'`);
    expect(RENDERER_CSP_META).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(RENDERER_CSP_META).toContain("default-src 'none'");
  });
});
