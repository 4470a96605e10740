import type { ReactNode } from 'react';
import { Empty, ErrorState, Loading } from './States';

/** The part of a react-query result the scaffolding needs (plain and infinite queries alike). */
export interface QueryLike<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
  refetch(): unknown;
}

/**
 * The loading / error / empty / content scaffolding every view repeats: a spinner while the
 * first answer is on its way, the error with a Retry, an empty state when `isEmpty` says so,
 * else the content.
 */
export function QueryView<T>({
  query,
  loading = 'Loading…',
  isEmpty,
  empty,
  children,
}: {
  query: QueryLike<T>;
  loading?: string;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading label={loading} />;
  if (query.isError) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  const data = query.data as T;
  if (isEmpty?.(data)) return <>{empty ?? <Empty title="Nothing here yet" />}</>;
  return <>{children(data)}</>;
}
