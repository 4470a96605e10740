import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Output } from '../api/client';
import { describeError } from '../api/errors';
import { buildHash } from '../router';
import { fmtTime, fmtUtc, plural, shortId } from '../format';
import { Empty } from '../components/States';
import { QueryView } from '../components/QueryView';
import { useAnnounce } from '../components/Announcer';
import { extractionQueries } from '../queries/misc';
import { invalidateEverything } from '../queries/client';
import { settingToFix } from '../setting-hints';

type RunResult = Output<'extraction.run'>;
type Cursor = Output<'extraction.status'>['sessions'][number];

function describeRun(r: RunResult): string {
  if (r.outcome === 'failed') return `Extraction failed: ${r.error ?? 'unknown error'}`;
  if (r.outcome === 'refused') return `Not run: ${r.refusal?.refused ?? 'refused'}`;
  if (r.outcome === 'nothing-new') return `Nothing new (read ${r.messagesRead} messages, cursor at #${r.cursorSeq}).`;
  return `Stored ${plural(r.factsStored, 'fact')} (${r.factsCreated} new, ${r.factsReinforced} reinforced, ${r.rejected} rejected); cursor at #${r.cursorSeq}.`;
}

/** A failure that a setting can fix says which one, with a link to it. */
function FixHint({ error }: { error: string | null }) {
  const hint = settingToFix(error);
  if (!hint) return null;
  return (
    <div className="fix-hint small" data-testid="fix-hint">
      {hint.advice} <a href={buildHash('settings', null, { focus: hint.setting })}>Open {hint.setting} in Settings</a>
    </div>
  );
}

function LeaseCell({ s }: { s: Cursor }) {
  if (!s.leaseOwner) return <span className="muted">—</span>;
  return (
    <>
      <span className="mono wrap-anywhere">{s.leaseOwner}</span>
      <div className={s.leaseLive ? '' : 'muted'} title={fmtUtc(s.leaseExpiresAt)}>
        {s.leaseLive ? 'live' : 'expired'} · {fmtTime(s.leaseExpiresAt)}
      </div>
    </>
  );
}

function AttemptsCell({ s }: { s: Cursor }) {
  return (
    <>
      {s.attempts} attempts
      {s.consecutiveFailures ? <div className="status-failed">{s.consecutiveFailures} failed in a row</div> : null}
      {s.lastError ? <div className="status-failed wrap-anywhere">{s.lastError}</div> : null}
      {s.lastError && s.status === 'failed' ? <FixHint error={s.lastError} /> : null}
      {s.nextAttemptAt ? (
        <div className="muted" title={fmtUtc(s.nextAttemptAt)}>
          next try {fmtTime(s.nextAttemptAt)}
        </div>
      ) : null}
    </>
  );
}

function ActionCell({ s, busy, run }: { s: Cursor; busy: boolean; run(retry: boolean): void }) {
  return s.status === 'failed' ? (
    <button type="button" className="primary" disabled={busy} onClick={() => run(true)}>
      {busy ? 'Retrying…' : 'Retry'}
    </button>
  ) : (
    <button type="button" disabled={busy || s.leaseLive} onClick={() => run(false)}>
      {busy ? 'Running…' : 'Run now'}
    </button>
  );
}

function CursorRow({ s, busy, run }: { s: Cursor; busy: boolean; run(retry: boolean): void }) {
  return (
    <tr data-session-id={s.sessionId} data-status={s.status}>
      <th scope="row">
        <a href={buildHash('sessions', s.sessionId)}>{s.title || shortId(s.sessionId)}</a>
        <div>
          <span className={`status status-${s.status}`}>{s.status}</span>
          {s.due ? <span className="small muted"> · due</span> : null}
        </div>
      </th>
      <td>
        #{s.cursorSeq}
        {s.pendingMessages ? <div className="small muted">{s.pendingMessages} new msgs</div> : null}
        <div className="small muted">
          {s.completedResponses} responses (last run at {s.lastResponseCount})
        </div>
      </td>
      <td className="small">
        <LeaseCell s={s} />
      </td>
      <td className="small">
        <AttemptsCell s={s} />
      </td>
      <td>
        {s.factsStored}
        {s.candidatesRejected ? <div className="small muted">{s.candidatesRejected} rejected</div> : null}
        <div className="small muted" title={fmtUtc(s.lastSuccessAt)}>
          {s.lastSuccessAt ? `ok ${fmtTime(s.lastSuccessAt)}` : 'never ok'}
        </div>
      </td>
      <td>
        <ActionCell s={s} busy={busy} run={run} />
      </td>
    </tr>
  );
}

type Result = { sessionId: string; text: string; failed: boolean; error: string | null };

/** Run now / Retry, with the outcome shown and read out. */
function useExtractionRun() {
  const client = useQueryClient();
  const announce = useAnnounce();
  const [result, setResult] = useState<Result | null>(null);
  const run = useMutation({
    mutationFn: ({ sessionId, retry }: { sessionId: string; retry: boolean }) =>
      api().call(retry ? 'extraction.retry' : 'extraction.run', { sessionId }),
    onSuccess: async (r) => {
      const text = describeRun(r);
      setResult({ sessionId: r.sessionId, text, failed: r.outcome === 'failed', error: r.error });
      announce(text, 'quiet');
      await invalidateEverything(client);
    },
    onError: (e, v) => setResult({ sessionId: v.sessionId, text: describeError(e), failed: true, error: null }),
  });
  return { run, result };
}

function CursorTable({ d, run }: { d: Output<'extraction.status'>; run: ReturnType<typeof useExtractionRun>['run'] }) {
  return (
    <div className="table-wrap">
      <table className="grid" data-testid="extraction-table">
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col">Cursor</th>
            <th scope="col">Lease</th>
            <th scope="col">Attempts and errors</th>
            <th scope="col">Facts</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {d.sessions.map((s) => (
            <CursorRow
              key={s.sessionId}
              s={s}
              busy={run.isPending && run.variables?.sessionId === s.sessionId}
              run={(retry) => run.mutate({ sessionId: s.sessionId, retry })}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ExtractionView() {
  // Leases expire on their own; the change feed covers writes, this covers the clock.
  const status = useQuery({ ...extractionQueries.status(), refetchInterval: 30_000 });
  const { run, result } = useExtractionRun();
  const titleOf = (id: string) => status.data?.sessions.find((x) => x.sessionId === id)?.title ?? shortId(id);
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
        <div className={`toast${result.failed ? ' error' : ''}`} data-testid="extraction-result">
          {titleOf(result.sessionId)}: {result.text}
          {result.failed ? <FixHint error={result.error} /> : null}
        </div>
      ) : null}
      <QueryView
        query={status}
        loading="Loading extraction cursors…"
        isEmpty={(d) => d.sessions.length === 0}
        empty={<Empty title="No sessions to extract from yet" />}
      >
        {(d) => <CursorTable d={d} run={run} />}
      </QueryView>
    </div>
  );
}
