import { useEffect, useMemo, useState } from 'react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { buildHash } from '../router';
import { fmtTime, plural, shortId } from '../format';
import { Empty, ErrorState, Loading } from '../components/States';
import { ForgetSessionDialog } from './ForgetSessionDialog';
import type { MessageRecord } from '../../../shared/schemas';

function messageTags(m: MessageRecord): string[] {
  return [
    m.isSummary && 'compaction summary',
    m.hidden && 'hidden copy',
    m.sideChatContext && 'side-chat source context',
    m.toolCallRound && 'tool-call round',
    m.compacted && 'compacted (audit only)',
    m.systemGenerated && 'system generated',
  ].filter((t): t is string => Boolean(t));
}

/** One transcript row; a turn that ran without memory (recall failed) says so and why. */
function TranscriptMessage({ m, sessionId, focused }: { m: MessageRecord; sessionId: string; focused: boolean }) {
  const kind = m.isSummary ? 'summary' : m.hidden || m.compacted ? 'hidden' : 'visible';
  return (
    <li
      id={`msg-${sessionId}-${m.seq}`}
      tabIndex={-1}
      className={`message role-${m.role} msg-${kind}${focused ? ' focused' : ''}`}
      data-seq={m.seq}
    >
      <div className="message-head">
        <span className="role">{m.role}</span>
        <span className="muted">#{m.seq}</span>
        {messageTags(m).map((t) => (
          <span key={t} className="badge tag">
            {t}
          </span>
        ))}
        <span className="muted right">{fmtTime(m.createdAt)}</span>
      </div>
      <div className="message-body">{m.content || <span className="muted">(empty)</span>}</div>
      {m.recallDegraded ? (
        <div className="notice warn small" data-testid="recall-degraded">
          Recall failed for this turn, so it ran without memory: {m.recallDegraded}
        </div>
      ) : null}
    </li>
  );
}

export function SessionDetail({ sessionId, focusSeq }: { sessionId: string; focusSeq: number | null }) {
  const session = useQuery({
    queryKey: ['session', sessionId],
    queryFn: () => api().call('sessions.get', { sessionId }),
  });
  const messages = useInfiniteQuery({
    queryKey: ['messages', sessionId],
    queryFn: ({ pageParam }) =>
      api().call('messages.list', { sessionId, includeHidden: true, afterSeq: pageParam, limit: 500 }),
    initialPageParam: 0,
    getNextPageParam: (last) => last.nextAfterSeq ?? undefined,
  });
  const facts = useQuery({
    queryKey: ['facts', { sessionId }],
    queryFn: () => api().call('facts.list', { sessionId, limit: 200, sort: 'recency' }),
  });
  const [forgetting, setForgetting] = useState(false);
  const all = useMemo(() => messages.data?.pages.flatMap((p) => p.messages) ?? [], [messages.data]);
  const focusLoaded = focusSeq === null || all.some((m) => m.seq === focusSeq);

  // Evidence links point at one message: keep loading until it is here, then bring it into view.
  useEffect(() => {
    if (!focusLoaded && messages.hasNextPage && !messages.isFetchingNextPage) void messages.fetchNextPage();
  }, [focusLoaded, messages.hasNextPage, messages.isFetchingNextPage]);
  useEffect(() => {
    if (focusSeq !== null && focusLoaded) {
      const el = document.getElementById(`msg-${sessionId}-${focusSeq}`);
      el?.scrollIntoView({ block: 'center' });
      el?.focus({ preventScroll: true });
    }
  }, [focusSeq, focusLoaded, sessionId, all.length]);

  if (session.isPending) return <Loading label="Loading session…" />;
  if (session.isError) return <ErrorState error={session.error} onRetry={() => void session.refetch()} />;
  const s = session.data;
  return (
    <article className="detail session-detail" data-testid="session-detail">
      <header className="detail-header">
        <div>
          <h2>{s.title || `Untitled session ${shortId(s.id)}`}</h2>
          <div className="row-meta">
            <span className="badge">{s.kind}</span>
            {s.parentSessionId ? (
              <a href={buildHash('sessions', s.parentSessionId)}>parent {shortId(s.parentSessionId)}</a>
            ) : null}
            {s.projectId ? (
              <span>
                project <span className="mono">{s.projectId}</span>
              </span>
            ) : null}
            {s.workspace ? (
              <span>
                workspace <span className="mono">{s.workspace}</span>
              </span>
            ) : null}
            {s.folderId ? (
              <span>
                folder <span className="mono">{s.folderId}</span>
              </span>
            ) : null}
            <span className="muted">{fmtTime(s.createdAt)}</span>
          </div>
        </div>
        <button type="button" className="danger" onClick={() => setForgetting(true)}>
          Forget session…
        </button>
      </header>
      {s.children.length ? (
        <p className="children">
          Team context:{' '}
          {s.children.map((c) => (
            <a key={c.id} href={buildHash('sessions', c.id)} className="badge">
              {c.kind} {c.title || shortId(c.id)}
            </a>
          ))}
        </p>
      ) : null}
      <div className="session-columns">
        <section className="transcript" aria-label="Transcript">
          <h3>
            Transcript <span className="muted">({plural(s.messageCount, 'message')})</span>
          </h3>
          {messages.isPending ? (
            <Loading label="Loading transcript…" />
          ) : messages.isError ? (
            <ErrorState error={messages.error} onRetry={() => void messages.refetch()} />
          ) : all.length === 0 ? (
            <Empty title="No messages" />
          ) : (
            <ol className="messages" data-testid="transcript">
              {all.map((m) => (
                <TranscriptMessage key={m.id} m={m} sessionId={sessionId} focused={m.seq === focusSeq} />
              ))}
            </ol>
          )}
          {messages.hasNextPage ? (
            <button
              type="button"
              className="load-more"
              onClick={() => void messages.fetchNextPage()}
              disabled={messages.isFetchingNextPage}
            >
              Load more messages
            </button>
          ) : null}
        </section>
        <aside className="session-facts" aria-label="Facts from this session">
          <h3>Facts with evidence here</h3>
          {facts.isPending ? (
            <Loading />
          ) : facts.isError ? (
            <ErrorState error={facts.error} onRetry={() => void facts.refetch()} />
          ) : facts.data.facts.length === 0 ? (
            <p className="muted">None yet.</p>
          ) : (
            <ul className="fact-links" data-testid="session-facts">
              {facts.data.facts.map((f) => (
                <li key={f.id}>
                  <a href={buildHash('facts', f.id)}>{f.text}</a>
                  <div className="row-meta">
                    <span className={`badge scope-${f.scope}`}>{f.scope}</span>
                    <span className="reinf">×{f.reinforcement}</span>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </aside>
      </div>
      {forgetting ? (
        <ForgetSessionDialog sessionId={s.id} title={s.title} onClose={() => setForgetting(false)} />
      ) : null}
    </article>
  );
}
