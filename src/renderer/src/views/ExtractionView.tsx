import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Output } from '../api/client';
import { describeError } from '../api/errors';
import { buildHash } from '../router';
import { fmtTime, plural, shortId } from '../format';
import { Empty, ErrorState, Loading } from '../components/States';
import { invalidateEverything } from '../queries';

type RunResult = Output<'extraction.run'>;

function describeRun(r: RunResult): string {
  if (r.outcome === 'failed') return `Extraction failed: ${r.error ?? 'unknown error'}`;
  if (r.outcome === 'refused') return `Not run: ${r.refusal?.refused ?? 'refused'}`;
  if (r.outcome === 'nothing-new') return `Nothing new (read ${r.messagesRead} messages, cursor at #${r.cursorSeq}).`;
  return `Stored ${plural(r.factsStored, 'fact')} (${r.factsCreated} new, ${r.factsReinforced} reinforced, ${r.rejected} rejected); cursor at #${r.cursorSeq}.`;
}

export function ExtractionView() {
  const client = useQueryClient();
  const status = useQuery({
    queryKey: ['extraction.status'],
    queryFn: () => api().call('extraction.status', { limit: 1000 }),
    // Leases and background runs change on their own; keep the table honest.
    refetchInterval: 5_000,
  });
  const [result, setResult] = useState<{ sessionId: string; text: string; failed: boolean } | null>(null);
  const run = useMutation({
    mutationFn: ({ sessionId, retry }: { sessionId: string; retry: boolean }) =>
      api().call(retry ? 'extraction.retry' : 'extraction.run', { sessionId }),
    onSuccess: async (r) => {
      setResult({ sessionId: r.sessionId, text: describeRun(r), failed: r.outcome === 'failed' });
      await invalidateEverything(client);
    },
    onError: (e, v) => setResult({ sessionId: v.sessionId, text: describeError(e), failed: true }),
  });

  return (
    <div className="page" data-testid="extraction-view">
      <div className="page-header">
        <h2>Extraction</h2>
        {status.data ? <span className="muted">extractor: {status.data.extractor}</span> : null}
        {status.isFetching && !status.isPending ? <span className="muted small">refreshing…</span> : null}
      </div>
      <p className="muted">
        Each top-level session has a durable cursor. Extraction runs after the 3rd completed response, then every 10
        more; a failure leaves the cursor retryable.
      </p>
      {result ? (
        <div className={`toast${result.failed ? ' error' : ''}`} role="status" data-testid="extraction-result">
          {status.data?.sessions.find((x) => x.sessionId === result.sessionId)?.title ?? shortId(result.sessionId)}:{' '}
          {result.text}
        </div>
      ) : null}
      {status.isPending ? (
        <Loading label="Loading extraction cursors…" />
      ) : status.isError ? (
        <ErrorState error={status.error} onRetry={() => void status.refetch()} />
      ) : status.data.sessions.length === 0 ? (
        <Empty title="No sessions to extract from yet" />
      ) : (
        <table className="grid" data-testid="extraction-table">
          <thead>
            <tr>
              <th>Session</th>
              <th>Status</th>
              <th>Cursor</th>
              <th>Responses</th>
              <th>Lease</th>
              <th>Attempts</th>
              <th>Last error</th>
              <th>Facts</th>
              <th>Last success</th>
              <th aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {status.data.sessions.map((s) => {
              const busy = run.isPending && run.variables?.sessionId === s.sessionId;
              return (
                <tr key={s.sessionId} data-session-id={s.sessionId} data-status={s.status}>
                  <td>
                    <a href={buildHash('sessions', s.sessionId)}>{s.title || shortId(s.sessionId)}</a>
                  </td>
                  <td>
                    <span className={`status status-${s.status}`}>{s.status}</span>
                    {s.due ? <div className="small muted">due</div> : null}
                  </td>
                  <td>
                    #{s.cursorSeq}
                    {s.pendingMessages ? <div className="small muted">{s.pendingMessages} new msgs</div> : null}
                  </td>
                  <td>
                    {s.completedResponses}
                    <div className="small muted">last run at {s.lastResponseCount}</div>
                  </td>
                  <td className="small">
                    {s.leaseOwner ? (
                      <>
                        <span className="mono">{s.leaseOwner}</span>
                        <div className={s.leaseLive ? '' : 'muted'}>
                          {s.leaseLive ? 'live' : 'expired'} · {fmtTime(s.leaseExpiresAt)}
                        </div>
                      </>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td>
                    {s.attempts}
                    {s.consecutiveFailures ? (
                      <div className="small status-failed">{s.consecutiveFailures} failed in a row</div>
                    ) : null}
                  </td>
                  <td className="small">
                    {s.lastError ? (
                      <span className="status-failed">{s.lastError}</span>
                    ) : (
                      <span className="muted">—</span>
                    )}
                    {s.nextAttemptAt ? <div className="muted">next try {fmtTime(s.nextAttemptAt)}</div> : null}
                  </td>
                  <td>
                    {s.factsStored}
                    {s.candidatesRejected ? <div className="small muted">{s.candidatesRejected} rejected</div> : null}
                  </td>
                  <td className="small">{fmtTime(s.lastSuccessAt)}</td>
                  <td>
                    {s.status === 'failed' ? (
                      <button
                        type="button"
                        className="primary"
                        disabled={busy}
                        onClick={() => run.mutate({ sessionId: s.sessionId, retry: true })}
                      >
                        {busy ? 'Retrying…' : 'Retry'}
                      </button>
                    ) : (
                      <button
                        type="button"
                        disabled={busy || s.leaseLive}
                        onClick={() => run.mutate({ sessionId: s.sessionId, retry: false })}
                      >
                        {busy ? 'Running…' : 'Run now'}
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
