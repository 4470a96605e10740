import type { EvofluxBridge } from '../../../preload/api';
import { ApiError, toApiError, unreachable } from './errors';

/** Carries one contract call; the IPC and HTTP transports differ in nothing else. */
export interface Transport {
  kind: 'ipc' | 'http';
  /** False for HTTP without a token: every call would be refused, so the window asks for one. */
  authenticated: boolean;
  call(name: string, input: unknown): Promise<unknown>;
}

export function ipcTransport(bridge: EvofluxBridge): Transport {
  return {
    kind: 'ipc',
    authenticated: true,
    call: async (name, input) => {
      const result = await (bridge.call as (n: string, i: unknown) => ReturnType<EvofluxBridge['call']>)(name, input);
      if (result && typeof result === 'object' && 'ok' in result) {
        if (result.ok) return result.value;
        throw toApiError(result.error);
      }
      throw new ApiError('internal', 'The desktop bridge returned something unexpected');
    },
  };
}

export interface HttpTransportOptions {
  /** Same origin by default: the page is served by the same `serve` process. */
  baseUrl?: string;
  token: string | null;
  fetch?: typeof fetch;
}

export function httpTransport(options: HttpTransportOptions): Transport {
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  const base = (options.baseUrl ?? '').replace(/\/+$/, '');
  return {
    kind: 'http',
    authenticated: Boolean(options.token),
    call: async (name, input) => {
      if (!options.token) {
        throw new ApiError(
          'forbidden',
          'No access token. Open the address `serve` printed (it ends in #token=…).',
          'authorization',
          401,
        );
      }
      let response: Response;
      try {
        response = await doFetch(`${base}/api/commands/${encodeURIComponent(name)}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${options.token}` },
          body: JSON.stringify(input ?? {}),
          credentials: 'omit',
          cache: 'no-store',
        });
      } catch (e) {
        throw unreachable(e);
      }
      const text = await response.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = null;
      }
      if (!response.ok) throw toApiError(body, response.status);
      return body;
    },
  };
}

const TOKEN_KEY = 'evoflux-token';
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{20,200}$/;

/** Keeps a pasted token for this tab, like one that arrived in the fragment. */
export function rememberToken(storage: StorageLike, token: string): boolean {
  if (!TOKEN_PATTERN.test(token)) return false;
  storage.setItem(TOKEN_KEY, token);
  return true;
}

export interface LocationLike {
  hash: string;
}
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/**
 * The HTTP token arrives in the URL fragment (`#token=…`, never sent to any server, never in
 * the served HTML). It is kept in this tab's sessionStorage and removed from the address bar.
 * Returns the token and the hash to show instead (null when unchanged).
 */
export function takeTokenFromLocation(
  location: LocationLike,
  storage: StorageLike | null,
): { token: string | null; cleanHash: string | null } {
  const match = /(?:^#|[#&])token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match) {
    try {
      storage?.setItem(TOKEN_KEY, match[1]!);
    } catch {
      // Storage can be disabled; the token still works for this page load.
    }
    const rest = location.hash.replace(/[#&]?token=[A-Za-z0-9_-]+/, '').replace(/^#?&?/, '');
    return { token: match[1]!, cleanHash: rest ? `#${rest}` : '#/facts' };
  }
  let stored: string | null = null;
  try {
    stored = storage?.getItem(TOKEN_KEY) ?? null;
  } catch {
    stored = null;
  }
  return { token: stored, cleanHash: null };
}

export interface WindowLike {
  evoflux?: EvofluxBridge;
  location: LocationLike & { origin?: string };
  sessionStorage?: StorageLike;
  history?: { replaceState(data: unknown, unused: string, url: string): void };
  fetch?: typeof fetch;
}

/** IPC when the desktop preload is present, HTTP to the serving origin otherwise. */
export function chooseTransport(win: WindowLike): Transport {
  if (win.evoflux && typeof win.evoflux.call === 'function') return ipcTransport(win.evoflux);
  let storage: StorageLike | null = null;
  try {
    storage = win.sessionStorage ?? null;
  } catch {
    storage = null;
  }
  const { token, cleanHash } = takeTokenFromLocation(win.location, storage);
  if (cleanHash !== null) win.history?.replaceState(null, '', cleanHash);
  return httpTransport({ token, fetch: win.fetch ? win.fetch.bind(win) : undefined });
}
