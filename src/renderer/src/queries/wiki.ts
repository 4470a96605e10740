import { queryOptions } from '@tanstack/react-query';
import { api } from '../api/client';

export const wikiKeys = {
  all: ['wiki'] as const,
  tree: (unprocessedOnly: boolean) => [...wikiKeys.all, 'tree', { unprocessedOnly }] as const,
  page: (path: string) => [...wikiKeys.all, 'page', path] as const,
};

export const wikiQueries = {
  tree: (unprocessedOnly = false) =>
    queryOptions({
      queryKey: wikiKeys.tree(unprocessedOnly),
      queryFn: () => api().call('wiki.tree', { unprocessedOnly }),
    }),
  page: (path: string) =>
    queryOptions({ queryKey: wikiKeys.page(path), queryFn: () => api().call('wiki.read', { path }) }),
};
