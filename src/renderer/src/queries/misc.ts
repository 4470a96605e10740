import { queryOptions } from '@tanstack/react-query';
import { api, type Input } from '../api/client';

/** Extraction, Dream, settings, overview, search, scope pickers and imports: one factory each. */
export const extractionKeys = { status: () => ['extraction', 'status'] as const };
export const extractionQueries = {
  status: () =>
    queryOptions({
      queryKey: extractionKeys.status(),
      queryFn: () => api().call('extraction.status', { limit: 1000 }),
    }),
};

export const dreamKeys = {
  all: ['dream'] as const,
  status: () => [...dreamKeys.all, 'status'] as const,
  pending: () => [...dreamKeys.all, 'pending'] as const,
  config: () => [...dreamKeys.all, 'config'] as const,
};
export const dreamQueries = {
  status: () => queryOptions({ queryKey: dreamKeys.status(), queryFn: () => api().call('dream.status', {}) }),
  pending: () =>
    queryOptions({ queryKey: dreamKeys.pending(), queryFn: () => api().call('dream.pending', { limit: 100 }) }),
  config: () => queryOptions({ queryKey: dreamKeys.config(), queryFn: () => api().call('dream.config.get', {}) }),
};

export const settingsKeys = { all: ['settings'] as const };
export const settingsQueries = {
  get: () => queryOptions({ queryKey: settingsKeys.all, queryFn: () => api().call('settings.get', {}) }),
};

export const statsKeys = { overview: (days: number) => ['stats', 'overview', days] as const };
export const statsQueries = {
  overview: (days: number) =>
    queryOptions({
      queryKey: statsKeys.overview(days),
      queryFn: () => api().call('stats.overview', { days, utcOffsetMinutes: -new Date().getTimezoneOffset() }),
    }),
};

export type ContextFilter = Input<'scopes.list'>;
export const scopeKeys = { list: (f: ContextFilter) => ['scopes', f] as const };
export const scopeQueries = {
  list: (f: ContextFilter) =>
    queryOptions({ queryKey: scopeKeys.list(f), queryFn: () => api().call('scopes.list', f), staleTime: 10_000 }),
};

export type SearchInput = Input<'memory.search'>;
export const searchKeys = { results: (input: SearchInput) => ['search', input] as const };
export const searchQueries = {
  results: (input: SearchInput) =>
    queryOptions({ queryKey: searchKeys.results(input), queryFn: () => api().call('memory.search', input) }),
};

export const importKeys = { status: () => ['import', 'status'] as const };
export const importQueries = {
  status: () => queryOptions({ queryKey: importKeys.status(), queryFn: () => api().call('import.status', {}) }),
};
