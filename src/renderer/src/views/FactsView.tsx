import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { api, type Input } from '../api/client';
import { buildHash, navigate, type Route } from '../router';
import { Empty, ErrorState, Loading } from '../components/States';
import { FactDetail } from './FactDetail';
import { FACT_KINDS, SCOPES } from '../../../shared/domain';

const PAGE = 200;
const ROW_HEIGHT = 68;
const SORTS = ['reinforcement', 'confidence', 'recency'] as const;

type Filter = Omit<Input<'facts.list'>, 'cursor' | 'limit'>;

function filterFrom(params: URLSearchParams): Filter {
  const scope = params.get('scope');
  const kind = params.get('kind');
  const sort = params.get('sort');
  const key = params.get('key');
  const text = params.get('q')?.trim();
  return {
    scope: (SCOPES as readonly string[]).includes(scope ?? '') ? (scope as Filter['scope']) : undefined,
    scopeKey: scope && key ? key : undefined,
    kind: (FACT_KINDS as readonly string[]).includes(kind ?? '') ? (kind as Filter['kind']) : undefined,
    text: text ? text : undefined,
    sort: (SORTS as readonly string[]).includes(sort ?? '') ? (sort as Filter['sort']) : 'reinforcement',
  };
}

const paramsOf = (f: Filter) => ({
  scope: f.scope,
  key: f.scopeKey,
  kind: f.kind,
  q: f.text,
  sort: f.sort === 'reinforcement' ? undefined : f.sort,
});

export function FactsView({ route }: { route: Route }) {
  const filter = useMemo(() => filterFrom(route.params), [route.params.toString()]);
  const selected = route.id;
  const go = (f: Filter, factId: string | null = selected, replace = true) =>
    navigate(buildHash('facts', factId, paramsOf(f)), replace);

  const [text, setText] = useState(filter.text ?? '');
  const [key, setKey] = useState(filter.scopeKey ?? '');
  useEffect(() => setText(filter.text ?? ''), [filter.text]);
  useEffect(() => setKey(filter.scopeKey ?? ''), [filter.scopeKey]);
  // Typing narrows the list after a short pause, not on every keystroke.
  useEffect(() => {
    const t = setTimeout(() => {
      if ((text.trim() || undefined) !== filter.text) go({ ...filter, text: text.trim() || undefined });
    }, 250);
    return () => clearTimeout(t);
  }, [text]);

  const query = useInfiniteQuery({
    queryKey: ['facts', filter],
    queryFn: ({ pageParam }) => api().call('facts.list', { ...filter, cursor: pageParam, limit: PAGE }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const facts = useMemo(() => query.data?.pages.flatMap((p) => p.facts) ?? [], [query.data]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: facts.length + (query.hasNextPage ? 1 : 0),
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (query.hasNextPage && !query.isFetchingNextPage && lastIndex >= facts.length - 40) void query.fetchNextPage();
  }, [lastIndex, facts.length, query.hasNextPage, query.isFetchingNextPage]);

  const [active, setActive] = useState(0);
  useEffect(() => setActive(0), [filter]);
  const onListKey = (e: KeyboardEvent) => {
    const move = (to: number) => {
      e.preventDefault();
      const next = Math.max(0, Math.min(facts.length - 1, to));
      setActive(next);
      virtualizer.scrollToIndex(next, { align: 'auto' });
    };
    if (e.key === 'ArrowDown' || e.key === 'j') move(active + 1);
    else if (e.key === 'ArrowUp' || e.key === 'k') move(active - 1);
    else if (e.key === 'PageDown') move(active + 10);
    else if (e.key === 'PageUp') move(active - 10);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(facts.length - 1);
    else if (e.key === 'Enter' && facts[active]) (e.preventDefault(), go(filter, facts[active]!.id, false));
  };

  return (
    <div className="split">
      <section className="pane list-pane" aria-label="Facts">
        <form className="filters" onSubmit={(e) => e.preventDefault()} role="search">
          <label>
            Scope
            <select
              value={filter.scope ?? ''}
              onChange={(e) =>
                go({ ...filter, scope: (e.target.value || undefined) as Filter['scope'], scopeKey: undefined })
              }
            >
              <option value="">all scopes</option>
              {SCOPES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          <label>
            Scope key
            <input
              value={key}
              disabled={!filter.scope || filter.scope === 'user'}
              placeholder={
                filter.scope === 'workspace'
                  ? '/path/to/workspace'
                  : filter.scope
                    ? `${filter.scope} id`
                    : 'pick a scope first'
              }
              onChange={(e) => setKey(e.target.value)}
              onBlur={() =>
                key.trim() !== (filter.scopeKey ?? '') && go({ ...filter, scopeKey: key.trim() || undefined })
              }
              onKeyDown={(e) => e.key === 'Enter' && go({ ...filter, scopeKey: key.trim() || undefined })}
              aria-label="Scope key"
            />
          </label>
          <label>
            Kind
            <select
              value={filter.kind ?? ''}
              onChange={(e) => go({ ...filter, kind: (e.target.value || undefined) as Filter['kind'] })}
            >
              <option value="">all kinds</option>
              {FACT_KINDS.map((k) => (
                <option key={k}>{k}</option>
              ))}
            </select>
          </label>
          <label>
            Sort
            <select value={filter.sort} onChange={(e) => go({ ...filter, sort: e.target.value as Filter['sort'] })}>
              {SORTS.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          <label className="grow">
            Text
            <input
              type="search"
              value={text}
              placeholder="Search fact text  ( / )"
              onChange={(e) => setText(e.target.value)}
              id="fact-search"
            />
          </label>
        </form>
        {query.isPending ? (
          <Loading label="Loading facts…" />
        ) : query.isError ? (
          <ErrorState error={query.error} onRetry={() => void query.refetch()} />
        ) : facts.length === 0 ? (
          <Empty title="No facts match">
            {filter.scope || filter.kind || filter.text
              ? 'Try fewer filters.'
              : 'Facts appear here once extraction (or `facts add`) records them.'}
          </Empty>
        ) : (
          <div
            className="virtual-scroll"
            ref={scrollRef}
            tabIndex={0}
            role="listbox"
            aria-label="Facts list"
            aria-activedescendant={facts[active] ? `fact-row-${facts[active]!.id}` : undefined}
            onKeyDown={onListKey}
            data-testid="facts-list"
          >
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {items.map((item) => {
                const fact = facts[item.index];
                const style = {
                  position: 'absolute' as const,
                  top: 0,
                  left: 0,
                  right: 0,
                  height: item.size,
                  transform: `translateY(${item.start}px)`,
                };
                if (!fact) {
                  return (
                    <div key="loader" style={style} className="row row-loader">
                      {query.isFetchNextPageError ? 'Could not load more facts.' : 'Loading more…'}
                    </div>
                  );
                }
                return (
                  <div
                    key={fact.id}
                    id={`fact-row-${fact.id}`}
                    role="option"
                    aria-selected={fact.id === selected}
                    data-fact-id={fact.id}
                    className={`row fact-row${fact.id === selected ? ' selected' : ''}${item.index === active ? ' active' : ''}`}
                    style={style}
                    onClick={() => (setActive(item.index), go(filter, fact.id, false))}
                  >
                    <div className="row-text">{fact.text}</div>
                    <div className="row-meta">
                      <span className={`badge scope-${fact.scope}`}>{fact.scope}</span>
                      {fact.scopeKey ? (
                        <span className="muted mono" title={fact.scopeKey}>
                          {fact.scopeKey}
                        </span>
                      ) : null}
                      <span className="badge">{fact.kind}</span>
                      <span className={`conf conf-${fact.confidence}`}>{fact.confidence}</span>
                      <span className="reinf" title="distinct supporting sessions">
                        ×{fact.reinforcement}
                      </span>
                    </div>
                  </div>
                );
              })}
            </div>
          </div>
        )}
        <div className="list-footer muted" aria-live="polite">
          {facts.length
            ? `${facts.length}${query.hasNextPage ? '+' : ''} ${facts.length === 1 ? 'fact' : 'facts'} loaded`
            : ''}
          {query.isFetching && !query.isPending ? ' · updating…' : ''}
        </div>
      </section>
      <section className="pane detail-pane" aria-label="Fact detail">
        {selected ? (
          <FactDetail factId={selected} onForgotten={() => go(filter, null)} />
        ) : (
          <Empty title="Select a fact">Arrow keys move through the list, Enter opens a fact.</Empty>
        )}
      </section>
    </div>
  );
}
