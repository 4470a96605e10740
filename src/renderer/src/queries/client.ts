import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/errors';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        refetchOnWindowFocus: true,
        // Bad input, unknown ids and missing commands will not get better by asking again.
        retry: (count, error) =>
          count < 2 && !(error instanceof ApiError && ['invalid_input', 'not_found', 'forbidden'].includes(error.code)),
      },
    },
  });
}

/** After anything that deletes (or when another process wrote), every view must show the new truth. */
export const invalidateEverything = (client: QueryClient) => client.invalidateQueries();
