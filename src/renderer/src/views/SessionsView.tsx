import { useMemo } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { buildHash, navigate, type Route } from '../router';
import { fmtTime, fmtUtc, plural, shortId } from '../format';
import { Empty } from '../components/States';
import { QueryView } from '../components/QueryView';
import { useRoving } from '../components/useRoving';
import { SessionDetail } from './SessionDetail';
import { sessionQueries } from '../queries/sessions';
import type { Output } from '../api/client';

type SessionRow = Output<'sessions.list'>['sessions'][number];

function SessionList({ sessions, selected }: { sessions: SessionRow[]; selected: string | null }) {
  const { attachList, onKeyDown, itemProps } = useRoving({
    items: sessions,
    idOf: (s) => s.id,
    initialId: selected,
    onActivate: (s) => navigate(buildHash('sessions', s.id)),
  });
  return (
    <div
      className="plain-scroll"
      role="listbox"
      aria-label="Sessions, newest first"
      ref={attachList}
      onKeyDown={onKeyDown}
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
          {...itemProps(s)}
        >
          <div className="row-text">{s.title || `Untitled ${shortId(s.id)}`}</div>
          <div className="row-meta">
            <span className="badge">{s.kind}</span>
            {s.projectId ? <span className="muted">project {s.projectId}</span> : null}
            <span className="muted">{plural(s.messageCount, 'message')}</span>
            <span className="muted" title={fmtUtc(s.createdAt)}>
              {fmtTime(s.createdAt)}
            </span>
          </div>
        </a>
      ))}
    </div>
  );
}

export function SessionsView({ route }: { route: Route }) {
  const query = useInfiniteQuery(sessionQueries.list());
  const sessions = useMemo(() => query.data?.pages.flatMap((p) => p.sessions) ?? [], [query.data]);
  const selected = route.id;
  const msg = route.params.get('msg');
  const messageId = route.params.get('mid');

  return (
    <div className="split">
      <section className="pane list-pane narrow" aria-labelledby="sessions-heading">
        <h2 className="pane-title" id="sessions-heading">
          Sessions
        </h2>
        <QueryView
          query={query}
          loading="Loading sessions…"
          isEmpty={() => sessions.length === 0}
          empty={<Empty title="No sessions yet">Sessions appear when an agent (or `sessions add`) creates one.</Empty>}
        >
          {() => (
            <>
              <SessionList sessions={sessions} selected={selected} />
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
            </>
          )}
        </QueryView>
      </section>
      <section className="pane detail-pane wide" aria-label="Session detail">
        {selected ? (
          <SessionDetail sessionId={selected} focusSeq={msg ? Number(msg) : null} focusMessageId={messageId} />
        ) : (
          <Empty title="Select a session">
            Its transcript, compaction summaries, hidden copies and facts show here.
          </Empty>
        )}
      </section>
    </div>
  );
}
