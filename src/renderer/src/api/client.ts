import { useSyncExternalStore } from 'react';
import type { CommandName, Contract, InputOf, OutputOf } from '../../../shared/contract';
import { ApiError } from './errors';
import {
  chooseTransport,
  forgetToken,
  httpTransport,
  storageOf,
  takeTokenFromLocation,
  type ChangeNotice,
  type Transport,
  type WindowLike,
} from './transport';

export type Input<N extends CommandName> = InputOf<Contract[N]>;
export type Output<N extends CommandName> = OutputOf<Contract[N]>;

export interface ApiClient {
  readonly transport: Transport['kind'];
  readonly authenticated: boolean;
  /** Why the window asks for a token again (the door refused the one it had), or null. */
  readonly gateMessage: string | null;
  call<N extends CommandName>(name: N, input: Input<N>): Promise<Output<N>>;
  /** Hears every change in the data home (pushed over IPC or the HTTP event stream). */
  subscribe(listener: (notice: ChangeNotice) => void): () => void;
  /** Auth state changes (a token arrived or was refused). */
  onAuthChange(listener: () => void): () => void;
  /** A token pasted into the gate or found in the address bar. */
  useToken(token: string): void;
}

const isRefusedToken = (e: unknown) => e instanceof ApiError && e.status === 401;

/** Listens on the current transport, and moves to the new one when the token changes. */
function followTransport(
  current: () => Transport,
  authListeners: Set<() => void>,
  listener: (notice: ChangeNotice) => void,
  refuse: () => void,
): () => void {
  let on = current();
  let off = on.subscribe(listener, refuse);
  const follow = () => {
    if (on === current()) return;
    off();
    on = current();
    off = on.subscribe(listener, refuse);
  };
  authListeners.add(follow);
  return () => {
    authListeners.delete(follow);
    off();
  };
}

/**
 * The window's one client. Over HTTP it follows the token: one arriving in the address bar of
 * an open tab (the printed address opened again) is taken without a reload, and a token the
 * door refuses sends the window back to the gate with a message.
 */
export function createClient(win: WindowLike & { addEventListener?: Window['addEventListener'] }): ApiClient {
  let transport = chooseTransport(win);
  let gateMessage: string | null = null;
  const authListeners = new Set<() => void>();
  const announce = () => authListeners.forEach((fn) => fn());
  const fetchImpl = win.fetch ? win.fetch.bind(win) : undefined;

  const refuse = () => {
    if (transport.kind !== 'http' || !transport.authenticated) return;
    forgetToken(storageOf(win));
    transport = httpTransport({ token: null, fetch: fetchImpl });
    gateMessage = 'The access token was not accepted (serve may have a new one). Open the address serve printed.';
    announce();
  };
  const useToken = (token: string) => {
    if (transport.kind !== 'http') return;
    transport = httpTransport({ token, fetch: fetchImpl });
    gateMessage = null;
    announce();
  };
  if (transport.kind === 'http') {
    win.addEventListener?.('hashchange', () => {
      const { token, cleanHash } = takeTokenFromLocation(win.location, storageOf(win));
      if (cleanHash === null || !token) return;
      win.history?.replaceState(null, '', cleanHash);
      useToken(token);
      // replaceState fires nothing: tell the router the address is clean now.
      if (typeof window !== 'undefined') window.dispatchEvent(new HashChangeEvent('hashchange'));
    });
  }
  return {
    get transport() {
      return transport.kind;
    },
    get authenticated() {
      return transport.authenticated;
    },
    get gateMessage() {
      return gateMessage;
    },
    call: async (name, input) => {
      try {
        return (await transport.call(name, input)) as never;
      } catch (e) {
        if (isRefusedToken(e)) refuse();
        throw e;
      }
    },
    subscribe: (listener) => followTransport(() => transport, authListeners, listener, refuse),
    onAuthChange: (listener) => {
      authListeners.add(listener);
      return () => void authListeners.delete(listener);
    },
    useToken,
  };
}

let shared: ApiClient | null = null;

/** The app's one client, on the transport this window offers. */
export function api(): ApiClient {
  return (shared ??= createClient(window as unknown as WindowLike));
}

/** Re-renders on auth changes; returns whether calls can be made and why not. */
export function useAuth(): { authenticated: boolean; gateMessage: string | null } {
  const client = api();
  const authenticated = useSyncExternalStore(client.onAuthChange, () => client.authenticated);
  const gateMessage = useSyncExternalStore(client.onAuthChange, () => client.gateMessage);
  return { authenticated, gateMessage };
}
