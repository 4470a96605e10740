import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api } from './api/client';

const SETTLE_MS = 150;

/**
 * Every view follows the data home: when the engine reports a change (this window, an agent,
 * the CLI, Dream), the queries on screen refetch; the others are marked stale. A burst of
 * writes becomes one refresh.
 */
export function useChangeFeed(): void {
  const client = useQueryClient();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const refresh = () => {
      // A change this window is making is announced before its answer arrives: its own success
      // handler refreshes (and drops the queries of what it deleted, which would refetch into
      // 404s from a view about to close), so the feed waits for it.
      if (client.isMutating() > 0) {
        timer = setTimeout(refresh, SETTLE_MS);
        return;
      }
      timer = null;
      // A forget preview is a question asked once; it is not refetched under the person reading it.
      void client.invalidateQueries({
        predicate: (q) => !(q.queryKey[0] === 'sessions' && q.queryKey[1] === 'forget-preview'),
      });
    };
    const off = api().subscribe(() => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(refresh, SETTLE_MS);
    });
    return () => {
      if (timer) clearTimeout(timer);
      off();
    };
  }, [client]);
}
