import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { api } from '../api/client';

export const sessionKeys = {
  all: ['sessions'] as const,
  list: () => [...sessionKeys.all, 'list'] as const,
  detail: (sessionId: string) => [...sessionKeys.all, 'detail', sessionId] as const,
  messages: (sessionId: string) => [...sessionKeys.all, 'messages', sessionId] as const,
  forgetPreview: (sessionId: string) => [...sessionKeys.all, 'forget-preview', sessionId] as const,
};

export const sessionQueries = {
  list: () =>
    infiniteQueryOptions({
      queryKey: sessionKeys.list(),
      queryFn: ({ pageParam }) => api().call('sessions.list', { cursor: pageParam, limit: 100 }),
      initialPageParam: undefined as string | undefined,
      getNextPageParam: (last) => last.nextCursor ?? undefined,
    }),
  detail: (sessionId: string) =>
    queryOptions({ queryKey: sessionKeys.detail(sessionId), queryFn: () => api().call('sessions.get', { sessionId }) }),
  messages: (sessionId: string) =>
    infiniteQueryOptions({
      queryKey: sessionKeys.messages(sessionId),
      queryFn: ({ pageParam }) =>
        api().call('messages.list', { sessionId, includeHidden: true, afterSeq: pageParam, limit: 500 }),
      initialPageParam: 0,
      getNextPageParam: (last) => last.nextAfterSeq ?? undefined,
    }),
  forgetPreview: (sessionId: string) =>
    queryOptions({
      queryKey: sessionKeys.forgetPreview(sessionId),
      queryFn: () => api().call('sessions.delete', { sessionId, dryRun: true }),
      staleTime: 0,
      gcTime: 0,
    }),
};
