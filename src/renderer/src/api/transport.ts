import type { ChangeNotice, EvofluxBridge } from '../../../preload/api';
import { ApiError, toApiError, unreachable } from './errors';

export type { ChangeNotice };

/** Carries one contract call; the IPC and HTTP transports differ in nothing else. */
export interface Transport {
  kind: 'ipc' | 'http';
  /** False for HTTP without a token: every call would be refused, so the window asks for one. */
  authenticated: boolean;
  call(name: string, input: unknown): Promise<unknown>;
  /**
   * Hears when the data home changed (any process wrote); returns the unsubscribe function.
   * `onRefused` is told when the door refused the token.
   */
  subscribe(listener: (notice: ChangeNotice) => void, onRefused?: () => void): () => void;
}

/** Splits a server-sent-events text stream into (event, data) pairs as it arrives. */
export function sseParser(onEvent: (event: string, data: string) => void): (chunk: string) => void {
  let buffer = '';
  return (chunk) => {
    buffer += chunk.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const [field, ...rest] = line.split(':');
        const value = rest.join(':').replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length) onEvent(event, data.join('\n'));
    }
  };
}

const RECONNECT_MIN_MS = 1_000;
const RECONNECT_MAX_MS = 15_000;

/**
 * Reads the HTTP door's event stream with fetch (EventSource cannot send the token), reconnecting
 * with back-off. A reconnect counts as a change: events may have been missed meanwhile.
 */
function httpSubscribe(
  doFetch: typeof fetch,
  url: string,
  token: string | null,
  listener: (notice: ChangeNotice) => void,
  onRefused?: () => void,
): () => void {
  let stopped = false;
  let controller: AbortController | null = null;
  let connectedBefore = false;
  const readOnce = async (): Promise<'again' | 'stop'> => {
    controller = new AbortController();
    const response = await doFetch(url, {
      headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' },
      signal: controller.signal,
      credentials: 'omit',
      cache: 'no-store',
    });
    if (response.status === 401) {
      onRefused?.();
      return 'stop';
    }
    if (!response.ok || !response.body) return 'again';
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const feed = sseParser((event, data) => {
      if (event === 'ready') {
        if (connectedBefore) listener({ at: Date.now(), sources: ['reconnected'] });
        connectedBefore = true;
      } else if (event === 'changed') {
        try {
          listener(JSON.parse(data) as ChangeNotice);
        } catch {
          listener({ at: Date.now(), sources: [] });
        }
      }
    });
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return 'again';
      feed(value);
    }
  };
  void (async () => {
    let delay = RECONNECT_MIN_MS;
    while (!stopped) {
      try {
        if ((await readOnce()) === 'stop') return;
        delay = RECONNECT_MIN_MS;
      } catch {
        // Dropped or refused connection: try again after a pause.
      }
      if (stopped) return;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, RECONNECT_MAX_MS);
    }
  })();
  return () => {
    stopped = true;
    controller?.abort();
  };
}

export function ipcTransport(bridge: EvofluxBridge): Transport {
  return {
    kind: 'ipc',
    authenticated: true,
    subscribe: (listener) => bridge.onChanged?.(listener) ?? (() => {}),
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
    subscribe: (listener, onRefused) =>
      options.token ? httpSubscribe(doFetch, `${base}/api/events`, options.token, listener, onRefused) : () => {},
    call: async (name, input) => {
      if (!options.token) {
        throw new ApiError(
          'unauthorized',
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
      let body: unknown;
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
  removeItem?(key: string): void;
}

/** Forgets a token the door refused, so the next visit asks again. */
export function forgetToken(storage: StorageLike | null): void {
  try {
    storage?.removeItem?.(TOKEN_KEY);
  } catch {
    // Storage can be disabled: nothing was kept then.
  }
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
  let stored: string | null;
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

export function storageOf(win: WindowLike): StorageLike | null {
  try {
    return win.sessionStorage ?? null;
  } catch {
    return null;
  }
}

/** IPC when the desktop preload is present, HTTP to the serving origin otherwise. */
export function chooseTransport(win: WindowLike): Transport {
  if (win.evoflux && typeof win.evoflux.call === 'function') return ipcTransport(win.evoflux);
  const { token, cleanHash } = takeTokenFromLocation(win.location, storageOf(win));
  if (cleanHash !== null) win.history?.replaceState(null, '', cleanHash);
  return httpTransport({ token, fetch: win.fetch ? win.fetch.bind(win) : undefined });
}
