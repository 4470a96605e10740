import { useEffect, useState } from 'react';

export const VIEWS = [
  'overview',
  'search',
  'facts',
  'sessions',
  'wiki',
  'extraction',
  'dream',
  'import',
  'settings',
] as const;
export type View = (typeof VIEWS)[number];

export interface Route {
  view: View;
  /** The selected record: a fact id, a session id. */
  id: string | null;
  params: URLSearchParams;
}

/** `#/facts/<id>?scope=project` -> { view: 'facts', id, params }. Unknown views fall back to facts. */
export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const [pathPart = '', query = ''] = raw.split('?', 2) as [string?, string?];
  const [viewPart, ...rest] = pathPart.split('/');
  const view = (VIEWS as readonly string[]).includes(viewPart ?? '') ? (viewPart as View) : 'facts';
  const id = rest.length ? decodeURIComponent(rest.join('/')) : null;
  return { view, id: id || null, params: new URLSearchParams(query) };
}

export function buildHash(
  view: View,
  id?: string | null,
  params?: Record<string, string | number | undefined | null>,
): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {}))
    if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  const qs = search.toString();
  return `#/${view}${id ? `/${encodeURIComponent(id)}` : ''}${qs ? `?${qs}` : ''}`;
}

export function navigate(hash: string, replace = false): void {
  if (replace) {
    history.replaceState(null, '', hash);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    window.location.hash = hash;
  }
}

export function useRoute(): Route {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const onChange = () => setHash(window.location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return parseHash(hash);
}
