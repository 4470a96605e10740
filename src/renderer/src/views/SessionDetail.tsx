import { useEffect, useMemo, useState } from 'react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { buildHash } from '../router';
import { fmtTime, fmtUtc, plural, shortId } from '../format';
import { Empty } from '../components/States';
import { QueryView } from '../components/QueryView';
import { ForgetSessionDialog } from './ForgetSessionDialog';
import { sessionQueries } from '../queries/sessions';
import { factQueries } from '../queries/facts';
import type { MessageRecord } from '../../../shared/schemas';
import type { Output } from '../api/client';

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

function Message({ m, sessionId, focused }: { m: MessageRecord; sessionId: string; focused: boolean }) {
  const tags = messageTags(m);
  const kind = m.isSummary ? 'summary' : m.hidden || m.compacted ? 'hidden' : 'visible';
  return (
    <li
      id={`msg-${sessionId}-${m.seq}`}
      tabIndex={-1}
      className={`message role-${m.role} msg-${kind}${focused ? ' focused' : ''}`}
      data-seq={m.seq}
      data-message-id={m.id}
      aria-current={focused ? 'true' : undefined}
    >
      <div className="message-head">
        <span className="role">{m.role}</span>
        <span className="muted">#{m.seq}</span>
        {tags.map((t) => (
          <span key={t} className="badge tag">
            {t}
          </span>
        ))}
        <span className="muted right" title={fmtUtc(m.createdAt)}>
          {fmtTime(m.createdAt)}
        </span>
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

/** The facts this session supports, all of them: pages of 100 as you ask for more. */
function SessionFacts({ sessionId, total }: { sessionId: string; total: number }) {
  const facts = useInfiniteQuery(factQueries.bySession(sessionId));
  const all = useMemo(() => facts.data?.pages.flatMap((p) => p.facts) ?? [], [facts.data]);
  return (
    <aside className="session-facts" aria-labelledby="session-facts-heading">
      <h3 id="session-facts-heading">
        Facts with evidence here <span className="muted">({total.toLocaleString('en-US')})</span>
      </h3>
      <QueryView query={facts} isEmpty={() => all.length === 0} empty={<p className="muted">None yet.</p>}>
        {() => (
          <>
            <ul className="fact-links" data-testid="session-facts">
              {all.map((f) => (
                <li key={f.id}>
                  <a href={buildHash('facts', f.id)}>{f.text}</a>
                  <div className="row-meta">
                    <span className={`badge scope-${f.scope}`}>{f.scope}</span>
                    <span className="reinf">×{f.reinforcement}</span>
                    {f.recall !== 'normal' ? <span className={`badge recall-${f.recall}`}>{f.recall}</span> : null}
                  </div>
                </li>
              ))}
            </ul>
            <p className="muted small" data-testid="session-facts-count">
              Showing {all.length.toLocaleString('en-US')} of {plural(total, 'fact')}
            </p>
            {facts.hasNextPage ? (
              <button
                type="button"
                className="load-more"
                onClick={() => void facts.fetchNextPage()}
                disabled={facts.isFetchingNextPage}
              >
                {facts.isFetchingNextPage ? 'Loading…' : 'Load more facts'}
              </button>
            ) : null}
          </>
        )}
      </QueryView>
    </aside>
  );
}

/**
 * A transcript opened at one message: by seq (evidence links) or by id (search hits). Pages
 * keep loading until that message is here, then it is brought into view and focused.
 */
function useFocusedMessage(
  sessionId: string,
  messages: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage(): unknown },
  all: MessageRecord[],
  focusSeq: number | null,
  focusMessageId: string | null,
): number | null {
  const target = focusMessageId
    ? (all.find((m) => m.id === focusMessageId)?.seq ?? null)
    : focusSeq !== null && all.some((m) => m.seq === focusSeq)
      ? focusSeq
      : null;
  const wanted = focusSeq !== null || focusMessageId !== null;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = messages;
  useEffect(() => {
    if (wanted && target === null && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [wanted, target, hasNextPage, isFetchingNextPage, fetchNextPage]);
  useEffect(() => {
    if (target === null) return;
    const el = document.getElementById(`msg-${sessionId}-${target}`);
    el?.scrollIntoView({ block: 'center' });
    el?.focus({ preventScroll: true });
  }, [target, sessionId]);
  return target ?? focusSeq;
}

type Session = Output<'sessions.get'>;

function SessionHeader({ s, onForget }: { s: Session; onForget(): void }) {
  return (
    <>
      <header className="detail-header">
        <div>
          <h2>{s.title || `Untitled session ${shortId(s.id)}`}</h2>
          <div className="row-meta">
            <span className="badge">{s.kind}</span>
            {s.parentSessionId ? (
              <a href={buildHash('sessions', s.parentSessionId)}>parent {shortId(s.parentSessionId)}</a>
            ) : null}
            {(['projectId', 'workspace', 'folderId'] as const).map((k) =>
              s[k] ? (
                <span key={k}>
                  {k === 'projectId' ? 'project' : k === 'folderId' ? 'folder' : 'workspace'}{' '}
                  <span className="mono">{s[k]}</span>
                </span>
              ) : null,
            )}
            <span className="muted" title={fmtUtc(s.createdAt)}>
              {fmtTime(s.createdAt)}
            </span>
          </div>
        </div>
        <button type="button" className="danger" onClick={onForget}>
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
    </>
  );
}

function Transcript({
  s,
  focusSeq,
  focusMessageId,
}: {
  s: Session;
  focusSeq: number | null;
  focusMessageId: string | null;
}) {
  const messages = useInfiniteQuery(sessionQueries.messages(s.id));
  const all = useMemo(() => messages.data?.pages.flatMap((p) => p.messages) ?? [], [messages.data]);
  const focused = useFocusedMessage(s.id, messages, all, focusSeq, focusMessageId);
  return (
    <section className="transcript" aria-labelledby="transcript-heading">
      <h3 id="transcript-heading">
        Transcript <span className="muted">({plural(s.messageCount, 'message')})</span>
      </h3>
      <QueryView
        query={messages}
        loading="Loading transcript…"
        isEmpty={() => all.length === 0}
        empty={<Empty title="No messages" />}
      >
        {() => (
          <ol className="messages" data-testid="transcript">
            {all.map((m) => (
              <Message key={m.id} m={m} sessionId={s.id} focused={m.seq === focused} />
            ))}
          </ol>
        )}
      </QueryView>
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
  );
}

export function SessionDetail({
  sessionId,
  focusSeq,
  focusMessageId = null,
}: {
  sessionId: string;
  focusSeq: number | null;
  focusMessageId?: string | null;
}) {
  const session = useQuery(sessionQueries.detail(sessionId));
  const [forgetting, setForgetting] = useState(false);
  return (
    <QueryView query={session} loading="Loading session…">
      {(s) => (
        <article className="detail session-detail" data-testid="session-detail">
          <SessionHeader s={s} onForget={() => setForgetting(true)} />
          <div className="session-columns">
            <Transcript s={s} focusSeq={focusSeq} focusMessageId={focusMessageId} />
            <SessionFacts sessionId={sessionId} total={s.factCount} />
          </div>
          {forgetting ? <ForgetSessionDialog session={s} onClose={() => setForgetting(false)} /> : null}
        </article>
      )}
    </QueryView>
  );
}
