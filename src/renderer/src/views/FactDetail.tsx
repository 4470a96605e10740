import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { describeError } from '../api/errors';
import { buildHash } from '../router';
import { fmtTime, plural, shortId } from '../format';
import { Dialog } from '../components/Dialog';
import { ErrorState, Loading } from '../components/States';
import { invalidateEverything } from '../queries';
import { ForgetWikiPreview } from '../components/ForgetWikiPreview';

const COERCION_TEXT: Record<string, string> = {
  'technical-kind-not-user': 'technical kinds cannot be user-global',
  'scope-unavailable': 'the requested scope is not available to the session',
  'unknown-scope': 'no scope has that name, so it stayed with the session',
};

export function FactDetail({ factId, onForgotten }: { factId: string; onForgotten(): void }) {
  const client = useQueryClient();
  const query = useQuery({ queryKey: ['fact', factId], queryFn: () => api().call('facts.get', { factId }) });
  const [confirming, setConfirming] = useState(false);
  // The dry run: which wiki pages change and which lines a person wrote keep mentioning the fact.
  const preview = useQuery({
    queryKey: ['fact-forget-preview', factId],
    queryFn: () => api().call('facts.delete', { factId, dryRun: true }),
    enabled: confirming,
    staleTime: 0,
    gcTime: 0,
  });
  const forget = useMutation({
    mutationFn: () => api().call('facts.delete', { factId }),
    onSuccess: async () => {
      setConfirming(false);
      onForgotten();
      // The fact is gone: drop its queries rather than refetch them into 404s.
      for (const key of ['fact', 'fact-forget-preview']) client.removeQueries({ queryKey: [key, factId] });
      await invalidateEverything(client);
    },
  });

  if (query.isPending) return <Loading label="Loading fact…" />;
  if (query.isError) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  const fact = query.data;
  return (
    <article className="detail" data-testid="fact-detail">
      <header className="detail-header">
        <h2>{fact.text}</h2>
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Forget fact…
        </button>
      </header>
      <dl className="props">
        <dt>Kind</dt>
        <dd>{fact.kind}</dd>
        <dt>Scope</dt>
        <dd>
          <span className={`badge scope-${fact.scope}`}>{fact.scope}</span>{' '}
          {fact.scopeKey ? (
            <span className="mono">{fact.scopeKey}</span>
          ) : (
            <span className="muted">(every session)</span>
          )}
          {fact.requestedScope ? (
            <div className="coercion" data-testid="coercion">
              asked for <b>{fact.requestedScope}</b>, stored at <b>{fact.scope}</b>:{' '}
              {COERCION_TEXT[fact.coercionReason ?? ''] ?? fact.coercionReason}
            </div>
          ) : null}
        </dd>
        <dt>Confidence</dt>
        <dd className={`conf conf-${fact.confidence}`}>{fact.confidence}</dd>
        <dt>Reinforcement</dt>
        <dd>{plural(fact.reinforcement, 'supporting session')}</dd>
        <dt>Origin</dt>
        <dd>{fact.origin}</dd>
        <dt>First seen</dt>
        <dd>{fmtTime(fact.firstSeenAt)}</dd>
        <dt>Last seen</dt>
        <dd>{fmtTime(fact.lastSeenAt)}</dd>
        <dt>Id</dt>
        <dd className="mono small">{fact.id}</dd>
      </dl>
      <h3>Evidence</h3>
      {fact.evidence.length === 0 ? (
        <p className="muted">No evidence rows (a manual fact whose sessions were forgotten).</p>
      ) : (
        <ul className="evidence" data-testid="evidence">
          {fact.evidence.map((e) => (
            <li key={e.sessionId + (e.messageId ?? '')}>
              <a
                href={buildHash('sessions', e.sessionId, { msg: e.messageSeq ?? undefined })}
                className="evidence-link"
                data-session-id={e.sessionId}
              >
                {e.sessionTitle || `session ${shortId(e.sessionId)}`}
                {e.messageSeq !== null ? ` · message #${e.messageSeq}` : ' · (no message)'}
              </a>
              {e.messageExcerpt ? <blockquote>{e.messageExcerpt}</blockquote> : null}
              <div className="muted small">recorded {fmtTime(e.createdAt)}</div>
            </li>
          ))}
        </ul>
      )}
      {confirming ? (
        <Dialog
          title="Forget this fact?"
          onClose={() => setConfirming(false)}
          actions={
            <>
              <button type="button" data-autofocus onClick={() => setConfirming(false)}>
                Cancel
              </button>
              <button type="button" className="danger" disabled={forget.isPending} onClick={() => forget.mutate()}>
                {forget.isPending ? 'Forgetting…' : 'Forget fact'}
              </button>
            </>
          }
        >
          <p>
            “{fact.text}” and its {plural(fact.evidence.length, 'evidence row')} will be deleted. Sessions and their
            transcripts stay. This cannot be undone.
          </p>
          {preview.isPending ? (
            <Loading label="Working out what would change in the wiki…" />
          ) : preview.isError ? (
            <ErrorState error={preview.error} onRetry={() => void preview.refetch()} />
          ) : (
            <ForgetWikiPreview wiki={preview.data.wiki} />
          )}
          {forget.isError ? <p className="error-text">{describeError(forget.error)}</p> : null}
        </Dialog>
      ) : null}
    </article>
  );
}
