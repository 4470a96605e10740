import { useMemo, type KeyboardEvent } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { buildHash, navigate, type Route } from '../router';
import { fmtTime, shortId } from '../format';
import { Empty, ErrorState, Loading } from '../components/States';
import { SessionDetail } from './SessionDetail';

export function SessionsView({ route }: { route: Route }) {
  const query = useInfiniteQuery({
    queryKey: ['sessions'],
    queryFn: ({ pageParam }) => api().call('sessions.list', { cursor: pageParam, limit: 100 }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // Agents create sessions while the window is open; keep the list current without a reload.
    refetchInterval: 15_000,
  });
  const sessions = useMemo(() => query.data?.pages.flatMap((p) => p.sessions) ?? [], [query.data]);
  const selected = route.id;
  const msg = route.params.get('msg');

  const onKey = (e: KeyboardEvent) => {
    const i = sessions.findIndex((s) => s.id === selected);
    const to = e.key === 'ArrowDown' || e.key === 'j' ? i + 1 : e.key === 'ArrowUp' || e.key === 'k' ? i - 1 : null;
    if (to === null) return;
    e.preventDefault();
    const next = sessions[Math.max(0, Math.min(sessions.length - 1, to))];
    if (next) {
      navigate(buildHash('sessions', next.id), true);
      document.getElementById(`session-row-${next.id}`)?.scrollIntoView({ block: 'nearest' });
    }
  };

  return (
    <div className="split">
      <section className="pane list-pane narrow" aria-label="Sessions">
        <div className="pane-title">Sessions</div>
        {query.isPending ? (
          <Loading label="Loading sessions…" />
        ) : query.isError ? (
          <ErrorState error={query.error} onRetry={() => void query.refetch()} />
        ) : sessions.length === 0 ? (
          <Empty title="No sessions yet">Sessions appear when an agent (or `sessions add`) creates one.</Empty>
        ) : (
          <div
            className="plain-scroll"
            role="listbox"
            aria-label="Sessions list"
            tabIndex={0}
            onKeyDown={onKey}
            data-testid="sessions-list"
          >
            {sessions.map((s) => (
              <a
                key={s.id}
                id={`session-row-${s.id}`}
                role="option"
                aria-selected={s.id === selected}
                className={`row session-row${s.id === selected ? ' selected' : ''}`}
                href={buildHash('sessions', s.id)}
                data-session-id={s.id}
              >
                <div className="row-text">{s.title || `Untitled ${shortId(s.id)}`}</div>
                <div className="row-meta">
                  <span className="badge">{s.kind}</span>
                  {s.projectId ? <span className="muted">project {s.projectId}</span> : null}
                  <span className="muted">{s.messageCount} msgs</span>
                  <span className="muted">{fmtTime(s.createdAt)}</span>
                </div>
              </a>
            ))}
            {query.hasNextPage ? (
              <button
                type="button"
                className="load-more"
                disabled={query.isFetchingNextPage}
                onClick={() => void query.fetchNextPage()}
              >
                {query.isFetchingNextPage ? 'Loading…' : 'Load more sessions'}
              </button>
            ) : null}
          </div>
        )}
      </section>
      <section className="pane detail-pane wide" aria-label="Session detail">
        {selected ? (
          <SessionDetail sessionId={selected} focusSeq={msg ? Number(msg) : null} />
        ) : (
          <Empty title="Select a session">
            Its transcript, compaction summaries, hidden copies and facts show here.
          </Empty>
        )}
      </section>
    </div>
  );
}
