import { describe, expect, it, vi } from 'vitest';
import {
  chooseTransport,
  httpTransport,
  ipcTransport,
  takeTokenFromLocation,
  type WindowLike,
} from '../../src/renderer/src/api/transport';
import {
  ApiError,
  codeForStatus,
  describeError,
  isMissingCommand,
  toApiError,
} from '../../src/renderer/src/api/errors';
import { buildHash, parseHash } from '../../src/renderer/src/router';
import type { EvofluxBridge } from '../../src/preload/api';

const memoryStorage = () => {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), m };
};
const TOKEN = 'A'.repeat(43);

function fakeFetch(status: number, body: unknown) {
  return vi.fn(
    async (_url: string, _init?: RequestInit) =>
      new Response(typeof body === 'string' ? body : JSON.stringify(body), { status }),
  );
}

describe('transport choice', () => {
  it('uses IPC when the preload bridge is present, and never touches fetch', async () => {
    const fetch = vi.fn();
    const bridge: EvofluxBridge = {
      call: vi.fn(async () => ({ ok: true as const, value: { sessions: [], nextCursor: null } })) as never,
    };
    const t = chooseTransport({
      evoflux: bridge,
      location: { hash: `#token=${TOKEN}` },
      fetch,
    } as unknown as WindowLike);
    expect(t.kind).toBe('ipc');
    expect(await t.call('sessions.list', {})).toEqual({ sessions: [], nextCursor: null });
    expect(bridge.call).toHaveBeenCalledWith('sessions.list', {});
    expect(fetch).not.toHaveBeenCalled();
  });

  it('uses HTTP otherwise, taking the token from the fragment and cleaning the address bar', async () => {
    const storage = memoryStorage();
    const replaceState = vi.fn();
    const fetch = fakeFetch(200, { facts: [], nextCursor: null });
    const t = chooseTransport({
      location: { hash: `#token=${TOKEN}` },
      sessionStorage: storage,
      history: { replaceState },
      fetch,
    } as unknown as WindowLike);
    expect(t.kind).toBe('http');
    expect(replaceState).toHaveBeenCalledWith(null, '', '#/facts');
    expect(storage.m.get('evoflux-token')).toBe(TOKEN);
    await t.call('facts.list', { scope: 'project' });
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('/api/commands/facts.list');
    expect(init!.method).toBe('POST');
    expect((init!.headers as Record<string, string>).Authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(init!.body as string)).toEqual({ scope: 'project' });
  });

  it('keeps the token for reloads in the same tab and keeps a route next to it', () => {
    const storage = memoryStorage();
    expect(takeTokenFromLocation({ hash: `#/sessions/abc?msg=3&token=${TOKEN}` }, storage)).toEqual({
      token: TOKEN,
      cleanHash: '#/sessions/abc?msg=3',
    });
    expect(takeTokenFromLocation({ hash: '#/facts' }, storage)).toEqual({ token: TOKEN, cleanHash: null });
    expect(takeTokenFromLocation({ hash: '#/facts' }, memoryStorage())).toEqual({ token: null, cleanHash: null });
  });

  it('fails a call without a token before sending anything', async () => {
    const fetch = vi.fn();
    const t = httpTransport({ token: null, fetch: fetch as never });
    expect(t.authenticated).toBe(false);
    expect(httpTransport({ token: TOKEN }).authenticated).toBe(true);
    await expect(t.call('facts.list', {})).rejects.toMatchObject({ code: 'unauthorized', status: 401 });
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('error mapping', () => {
  it('keeps the code, message and field a door sent', async () => {
    const fetch = fakeFetch(400, {
      error: { code: 'invalid_input', message: 'scope: Invalid option', field: 'scope' },
    });
    const err = await httpTransport({ token: TOKEN, fetch: fetch as never })
      .call('facts.list', { scope: 'x' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'invalid_input', field: 'scope', status: 400, message: 'scope: Invalid option' });
  });

  it('turns IPC error values into the same ApiError', async () => {
    const bridge = {
      call: async () => ({
        ok: false as const,
        error: { code: 'not_found' as const, message: 'session not found: s1', field: 'sessionId' },
      }),
    };
    const err = await ipcTransport(bridge as never)
      .call('sessions.get', { sessionId: 's1' })
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'not_found', field: 'sessionId', message: 'session not found: s1' });
    const odd = await ipcTransport({ call: async () => 'weird' } as never)
      .call('x', {})
      .catch((e) => e);
    expect(odd).toMatchObject({ code: 'internal' });
  });

  it('maps bare statuses when the body is not ours', () => {
    expect(codeForStatus(401)).toBe('unauthorized');
    expect(codeForStatus(404)).toBe('not_found');
    expect(codeForStatus(409)).toBe('conflict');
    expect(codeForStatus(405)).toBe('invalid_input');
    expect(codeForStatus(418)).toBe('invalid_input');
    expect(codeForStatus(502)).toBe('internal');
    expect(codeForStatus(503)).toBe('unavailable');
    expect(toApiError('<html>bad gateway</html>', 502)).toMatchObject({ code: 'internal', status: 502 });
    expect(toApiError(null, 401).message).toContain('token');
    expect(toApiError({ error: { code: 'made_up', message: 'x' } }, 500).code).toBe('internal');
  });

  it('reports an unreachable server as unavailable', async () => {
    const fetch = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    const err = await httpTransport({ token: TOKEN, fetch: fetch as never })
      .call('facts.list', {})
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'unavailable' });
    expect(describeError(err)).toContain('Cannot reach');
  });

  it('recognises a command this build does not have', () => {
    const missing = new ApiError('not_found', 'unknown command: wiki.tree', 'command', 404);
    expect(isMissingCommand(missing)).toBe(true);
    expect(describeError(missing)).toBe('This feature is not available in this build.');
    expect(isMissingCommand(new ApiError('not_found', 'fact not found: f', 'factId'))).toBe(false);
  });
});

describe('hash routes', () => {
  it('round-trips view, id and params', () => {
    const hash = buildHash('sessions', 'a/b c', { msg: 4, empty: '', none: undefined });
    expect(hash).toBe('#/sessions/a%2Fb%20c?msg=4');
    const r = parseHash(hash);
    expect(r).toMatchObject({ view: 'sessions', id: 'a/b c' });
    expect(r.params.get('msg')).toBe('4');
    expect(parseHash('#/nonsense').view).toBe('facts');
    expect(parseHash('').id).toBeNull();
  });
});
