import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { defaultRangeExtractor, useVirtualizer, type Range, type VirtualItem } from '@tanstack/react-virtual';
import { buildHash, navigate, type Route } from '../router';
import { Empty, ErrorState, Loading } from '../components/States';
import { ContextSelect } from '../components/ContextSelect';
import { useRoving } from '../components/useRoving';
import { FactDetail } from './FactDetail';
import { AddFactDialog } from './AddFactDialog';
import { factQueries, type FactFilter } from '../queries/facts';
import { FACT_KINDS, FACT_RECALL_MODES, SCOPES } from '../../../shared/domain';
import type { FactRecord } from '../../../shared/schemas';
import { plural } from '../format';

const ROW_HEIGHT = 68;
const SORTS = ['relevance', 'reinforcement', 'confidence', 'recency'] as const;

const oneOf = <T extends string>(list: readonly T[], v: string | null | undefined): T | undefined =>
  (list as readonly string[]).includes(v ?? '') ? (v as T) : undefined;

function filterFrom(params: URLSearchParams): FactFilter {
  const scope = oneOf(SCOPES, params.get('scope'));
  const text = params.get('q')?.trim() || undefined;
  const sort = oneOf(SORTS, params.get('sort'));
  return {
    scope,
    scopeKey: scope && scope !== 'user' ? params.get('key') || undefined : undefined,
    kind: oneOf(FACT_KINDS, params.get('kind')),
    recall: oneOf(FACT_RECALL_MODES, params.get('recall')),
    text,
    // Words typed: best matches first, unless another order was picked.
    sort: sort === 'relevance' && !text ? 'reinforcement' : (sort ?? (text ? 'relevance' : 'reinforcement')),
  };
}

const paramsOf = (f: FactFilter) => ({
  scope: f.scope,
  key: f.scopeKey,
  kind: f.kind,
  recall: f.recall,
  q: f.text,
  sort: f.sort === (f.text ? 'relevance' : 'reinforcement') ? undefined : f.sort,
});

function FactRow({ fact, selected }: { fact: FactRecord; selected: boolean }) {
  return (
    <>
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
        {fact.recall !== 'normal' ? <span className={`badge recall-${fact.recall}`}>{fact.recall}</span> : null}
        {selected ? <span className="visually-hidden">(open)</span> : null}
      </div>
    </>
  );
}

/** The words box: typing narrows the list after a short pause; a new address (back, a link) resets it. */
function WordsInput({ filter, go }: { filter: FactFilter; go(f: FactFilter): void }) {
  const [text, setText] = useState(filter.text ?? '');
  const [seen, setSeen] = useState(filter.text);
  if (seen !== filter.text) {
    setSeen(filter.text);
    if ((filter.text ?? '') !== text.trim()) setText(filter.text ?? '');
  }
  useEffect(() => {
    const t = setTimeout(() => {
      const next = text.trim() || undefined;
      if (next !== filter.text) go({ ...filter, text: next, sort: next ? 'relevance' : 'reinforcement' });
    }, 250);
    return () => clearTimeout(t);
  }, [text, filter, go]);
  return (
    <label className="grow">
      Words
      <input
        type="search"
        value={text}
        placeholder="Any of these words  ( / )"
        onChange={(e) => setText(e.target.value)}
        id="fact-search"
        data-search-box
      />
    </label>
  );
}

function ScopeFilter({ filter, go }: { filter: FactFilter; go(f: FactFilter): void }) {
  return (
    <>
      <label>
        Scope
        <select
          value={filter.scope ?? ''}
          onChange={(e) => go({ ...filter, scope: oneOf(SCOPES, e.target.value), scopeKey: undefined })}
          data-testid="filter-scope"
        >
          <option value="">all scopes</option>
          {SCOPES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      {filter.scope && filter.scope !== 'user' ? (
        <label>
          {filter.scope[0]!.toUpperCase() + filter.scope.slice(1)}
          <ContextSelect
            scope={filter.scope}
            value={filter.scopeKey}
            label={`Which ${filter.scope}`}
            onChange={(key) => go({ ...filter, scopeKey: key })}
          />
        </label>
      ) : null}
    </>
  );
}

function Filters({ filter, go }: { filter: FactFilter; go(f: FactFilter): void }) {
  return (
    <form className="filters" onSubmit={(e) => e.preventDefault()} role="search" aria-label="Filter facts">
      <ScopeFilter filter={filter} go={go} />
      <label>
        Kind
        <select value={filter.kind ?? ''} onChange={(e) => go({ ...filter, kind: oneOf(FACT_KINDS, e.target.value) })}>
          <option value="">all kinds</option>
          {FACT_KINDS.map((k) => (
            <option key={k}>{k}</option>
          ))}
        </select>
      </label>
      <label>
        Recall
        <select
          value={filter.recall ?? ''}
          onChange={(e) => go({ ...filter, recall: oneOf(FACT_RECALL_MODES, e.target.value) })}
        >
          <option value="">any</option>
          <option value="pinned">pinned</option>
          <option value="paused">paused</option>
          <option value="normal">normal</option>
        </select>
      </label>
      <label>
        Sort
        <select value={filter.sort} onChange={(e) => go({ ...filter, sort: oneOf(SORTS, e.target.value) })}>
          {SORTS.filter((s) => s !== 'relevance' || filter.text).map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <WordsInput filter={filter} go={go} />
    </form>
  );
}

/** The facts a filter matches, paged as the list is read, with the real total. */
function useFactPages(filter: FactFilter) {
  const query = useInfiniteQuery(factQueries.list(filter));
  const { sort: _sort, ...countFilter } = filter;
  const count = useQuery(factQueries.count(countFilter));
  const facts = useMemo(() => query.data?.pages.flatMap((p) => p.facts) ?? [], [query.data]);
  return { query, facts, total: count.data?.total };
}

/** The virtual list: only the rows on screen exist, and the focused row stays rendered. */
function useFactVirtualizer(
  count: number,
  scrollRef: React.RefObject<HTMLDivElement | null>,
  activeRef: React.RefObject<number>,
) {
  const rangeExtractor = useCallback(
    (range: Range) => {
      const indexes = defaultRangeExtractor(range);
      const active = activeRef.current;
      if (!indexes.includes(active) && active < range.count) indexes.push(active);
      return indexes.sort((a, b) => a - b);
    },
    [activeRef],
  );
  // The warning is about React Compiler's memoization, which this build does not use; the
  // virtualizer's functions are read on every render.
  // eslint-disable-next-line react-hooks/incompatible-library
  return useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    rangeExtractor,
  });
}

function footerText(loaded: number, total: number | undefined): string {
  if (total === undefined) return loaded ? `${plural(loaded, 'fact')} loaded` : '';
  return `${loaded < total ? `${loaded.toLocaleString('en-US')} of ` : ''}${plural(total, 'fact')}`;
}

interface RowsProps {
  facts: FactRecord[];
  items: VirtualItem[];
  totalSize: number;
  total: number | undefined;
  selected: string | null;
  loadFailed: boolean;
  go(id: string): void;
  roving: ReturnType<typeof useRoving<FactRecord>>;
  setRefs(el: HTMLDivElement | null): void;
}

function FactRows({ facts, items, totalSize, total, selected, loadFailed, go, roving, setRefs }: RowsProps) {
  return (
    <div
      className="virtual-scroll"
      ref={setRefs}
      role="listbox"
      aria-label="Facts"
      onKeyDown={roving.onKeyDown}
      data-testid="facts-list"
    >
      <div className="virtual-inner" style={{ height: totalSize }}>
        {items.map((item) => {
          const fact = facts[item.index];
          const style = { height: item.size, transform: `translateY(${item.start}px)` };
          if (!fact) {
            return (
              <div key="loader" style={style} className="row row-loader virtual-row" aria-hidden="true">
                {loadFailed ? 'Could not load more facts.' : 'Loading more…'}
              </div>
            );
          }
          return (
            <div
              key={fact.id}
              id={`fact-row-${fact.id}`}
              role="option"
              aria-selected={fact.id === selected}
              aria-posinset={item.index + 1}
              aria-setsize={total ?? -1}
              data-fact-id={fact.id}
              className={`row fact-row virtual-row${fact.id === selected ? ' selected' : ''}`}
              style={style}
              onClick={() => go(fact.id)}
              {...roving.itemProps(fact)}
            >
              <FactRow fact={fact} selected={fact.id === selected} />
            </div>
          );
        })}
      </div>
    </div>
  );
}

function FactList({ filter, selected, go }: { filter: FactFilter; selected: string | null; go(id: string): void }) {
  const { query, facts, total } = useFactPages(filter);
  const scrollRef = useRef<HTMLDivElement | null>(null);
  const activeRef = useRef(0);
  const virtualizer = useFactVirtualizer(facts.length + (query.hasNextPage ? 1 : 0), scrollRef, activeRef);
  const roving = useRoving({
    items: facts,
    idOf: (f) => f.id,
    initialId: selected,
    reveal: (i) => virtualizer.scrollToIndex(i, { align: 'auto' }),
    onActivate: (f) => go(f.id),
  });
  useEffect(() => {
    activeRef.current = roving.activeIndex;
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastIndex >= facts.length - 40) void fetchNextPage();
  }, [lastIndex, facts.length, hasNextPage, isFetchingNextPage, fetchNextPage]);
  const { attachList } = roving;
  const setRefs = useCallback(
    (el: HTMLDivElement | null) => {
      scrollRef.current = el;
      attachList(el);
    },
    [attachList],
  );

  if (query.isPending) return <Loading label="Loading facts…" />;
  if (query.isError) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  return (
    <>
      {facts.length === 0 ? (
        <Empty title="No facts match">
          {filter.scope || filter.kind || filter.text || filter.recall
            ? 'Try fewer filters or other words.'
            : 'Facts appear here once extraction (or “Add fact…”) records them.'}
        </Empty>
      ) : (
        <FactRows
          facts={facts}
          items={items}
          totalSize={virtualizer.getTotalSize()}
          total={total}
          selected={selected}
          loadFailed={query.isFetchNextPageError}
          go={go}
          roving={roving}
          setRefs={setRefs}
        />
      )}
      <div className="list-footer muted" aria-live="polite" data-testid="facts-total">
        {footerText(facts.length, total)}
        {query.isFetching && !query.isPending ? ' · updating…' : ''}
      </div>
    </>
  );
}

export function FactsView({ route }: { route: Route }) {
  const paramsKey = route.params.toString();
  const filter = useMemo(() => filterFrom(new URLSearchParams(paramsKey)), [paramsKey]);
  const selected = route.id;
  const [adding, setAdding] = useState(false);
  const go = (f: FactFilter, factId: string | null = selected, replace = true) =>
    navigate(buildHash('facts', factId, paramsOf(f)), replace);
  const goFilter = useCallback(
    (f: FactFilter) => navigate(buildHash('facts', selected, paramsOf(f)), true),
    [selected],
  );

  return (
    <div className="split">
      <section className="pane list-pane" aria-labelledby="facts-heading">
        <div className="pane-title page-header">
          <h2 id="facts-heading">Facts</h2>
          <button type="button" className="right" onClick={() => setAdding(true)}>
            Add fact…
          </button>
        </div>
        <Filters filter={filter} go={goFilter} />
        <FactList filter={filter} selected={selected} go={(id) => go(filter, id, false)} />
      </section>
      <section className="pane detail-pane" aria-label="Fact detail">
        {selected ? (
          <FactDetail factId={selected} onGone={(next) => go(filter, next)} />
        ) : (
          <Empty title="Select a fact">Arrow keys move through the list, Enter opens a fact.</Empty>
        )}
      </section>
      {adding ? (
        <AddFactDialog
          defaults={{ scope: filter.scope, scopeKey: filter.scopeKey }}
          onClose={() => setAdding(false)}
          onAdded={(id) => {
            setAdding(false);
            go(filter, id, false);
          }}
        />
      ) : null}
    </div>
  );
}
