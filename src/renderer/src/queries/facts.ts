import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { api, type Input } from '../api/client';

export type FactFilter = Omit<Input<'facts.list'>, 'cursor' | 'limit'>;
export type FactCountFilter = Omit<FactFilter, 'sort'>;

export const FACT_PAGE = 200;

export const factKeys = {
  all: ['facts'] as const,
  lists: () => [...factKeys.all, 'list'] as const,
  list: (filter: FactFilter) => [...factKeys.lists(), filter] as const,
  count: (filter: FactCountFilter) => [...factKeys.all, 'count', filter] as const,
  detail: (factId: string) => [...factKeys.all, 'detail', factId] as const,
  history: (factId: string) => [...factKeys.all, 'history', factId] as const,
  bySession: (sessionId: string) => [...factKeys.all, 'session', sessionId] as const,
};

export const factQueries = {
  list: (filter: FactFilter) =>
    infiniteQueryOptions({
      queryKey: factKeys.list(filter),
      queryFn: ({ pageParam }) => api().call('facts.list', { ...filter, cursor: pageParam, limit: FACT_PAGE }),
      initialPageParam: undefined as string | undefined,
      getNextPageParam: (last) => last.nextCursor ?? undefined,
    }),
  count: (filter: FactCountFilter) =>
    queryOptions({ queryKey: factKeys.count(filter), queryFn: () => api().call('facts.count', filter) }),
  detail: (factId: string) =>
    queryOptions({ queryKey: factKeys.detail(factId), queryFn: () => api().call('facts.get', { factId }) }),
  history: (factId: string) =>
    queryOptions({ queryKey: factKeys.history(factId), queryFn: () => api().call('facts.history', { factId }) }),
  /** A session's facts, in full: pages of 100 as the list is read. */
  bySession: (sessionId: string) =>
    infiniteQueryOptions({
      queryKey: factKeys.bySession(sessionId),
      queryFn: ({ pageParam }) =>
        api().call('facts.list', { sessionId, sort: 'recency', cursor: pageParam, limit: 100 }),
      initialPageParam: undefined as string | undefined,
      getNextPageParam: (last) => last.nextCursor ?? undefined,
    }),
};
