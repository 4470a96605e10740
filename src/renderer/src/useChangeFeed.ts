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
      timer = null;
      // A write of this window still in flight (a forget) refreshes the views itself once it
      // answers, dropping what it deleted; refetching under it now would ask for a session that
      // is already gone (404s). The notice waits until no write is pending.
      if (client.isMutating() > 0) {
        timer = setTimeout(refresh, SETTLE_MS);
        return;
      }
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
