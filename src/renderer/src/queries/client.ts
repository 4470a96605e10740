import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/errors';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Every byte is local (IPC or loopback HTTP): an OS that reports "offline" must not pause
      // loading or saving, which react-query's default 'online' network mode would do.
      queries: {
        networkMode: 'always',
        staleTime: 5_000,
        refetchOnWindowFocus: true,
        // Bad input, unknown ids and missing commands will not get better by asking again.
        retry: (count, error) =>
          count < 2 &&
          !(
            error instanceof ApiError &&
            ['invalid_input', 'not_found', 'unauthorized', 'forbidden'].includes(error.code)
          ),
      },
      mutations: { networkMode: 'always' },
    },
  });
}

/** After anything that deletes (or when another process wrote), every view must show the new truth. */
export const invalidateEverything = (client: QueryClient) => client.invalidateQueries();
