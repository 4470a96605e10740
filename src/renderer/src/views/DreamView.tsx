import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Output } from '../api/client';
import { describeError } from '../api/errors';
import { buildHash } from '../router';
import { fmtTime, plural } from '../format';
import { Empty, ErrorState, Loading } from '../components/States';
import { SettingsProblems } from '../components/SettingsProblems';
import { ForgottenMentions } from '../components/ForgottenMentions';

type RunResult = Output<'dream.run'>;

function describeRun(r: RunResult): { text: string; failed: boolean } {
  if (r.status === 'already_running')
    return { text: `Dream is already running elsewhere. ${r.remaining} pending.`, failed: true };
  if (!r.sessionsProcessed && !r.notesProcessed && !r.failed) return { text: 'Nothing to process.', failed: false };
  return {
    text: `${plural(r.sessionsProcessed, 'session')}, ${plural(r.notesProcessed, 'note')} processed; ${plural(r.pagesWritten, 'page')} written${r.failed ? `; ${r.failed} failed` : ''}. ${r.remaining} remaining.`,
    failed: r.failed > 0,
  };
}

export function DreamView() {
  const client = useQueryClient();
  const [runningHere, setRunningHere] = useState(false);
  const status = useQuery({
    queryKey: ['dream.status'],
    queryFn: () => api().call('dream.status', {}),
    // While a run is in progress (here or by the schedule), follow it every 1.2 s.
    refetchInterval: (q) => (runningHere || q.state.data?.running ? 1_200 : 10_000),
  });
  const config = useQuery({ queryKey: ['dream.config'], queryFn: () => api().call('dream.config.get', {}) });
  const [draft, setDraft] = useState<{ enabled: boolean; schedule: string } | null>(null);
  // Adopt server values by value, so a refetch never wipes an edit in progress.
  useEffect(() => {
    if (config.data && (!draft || !dirty(draft, config.data))) setDraft({ ...config.data });
  }, [config.data?.enabled, config.data?.schedule]);
  const isDirty = !!(draft && config.data && dirty(draft, config.data));

  const save = useMutation({
    mutationFn: (d: { enabled: boolean; schedule: string }) =>
      api().call('dream.config.set', { enabled: d.enabled, schedule: d.schedule.trim() || '0 2 * * *' }),
    onSuccess: async (saved) => {
      setDraft({ ...saved });
      await client.invalidateQueries({ queryKey: ['dream.config'] });
      await client.invalidateQueries({ queryKey: ['dream.status'] });
    },
  });
  const [result, setResult] = useState<{ text: string; failed: boolean } | null>(null);
  const run = useMutation({
    mutationFn: () => api().call('dream.run', { drain: true }),
    onMutate: () => (setRunningHere(true), setResult(null)),
    onSettled: () => setRunningHere(false),
    onSuccess: async (r) => {
      setResult(describeRun(r));
      await client.invalidateQueries();
    },
    onError: (e) => setResult({ text: describeError(e), failed: true }),
  });
  const lint = useMutation({
    mutationFn: () => api().call('wiki.lint', {}),
    onSuccess: () => client.invalidateQueries({ queryKey: ['wiki.tree'] }),
  });

  const s = status.data;
  const running = runningHere || !!s?.running;
  return (
    <div className="page" data-testid="dream-view">
      <div className="page-header">
        <h2>Dream synthesis</h2>
        <span className="muted">Consolidates top-level sessions and daily notes into the wiki.</span>
        <button
          type="button"
          className="primary right"
          disabled={running}
          onClick={() => run.mutate()}
          data-testid="dream-run"
        >
          {running ? 'Running…' : 'Run Dream now'}
        </button>
      </div>
      <SettingsProblems problems={s?.settingsProblems} />
      {running ? (
        <div aria-live="polite" data-testid="dream-progress">
          <div className="progress" role="progressbar" aria-label="Dream is running">
            <div />
          </div>
          <div className="muted small">
            Dream is running…{' '}
            {s ? `${plural(s.pendingSessions, 'session')} and ${plural(s.pendingNotes, 'note')} still pending.` : ''}
          </div>
        </div>
      ) : null}
      {result ? (
        <div className={`toast${result.failed ? ' error' : ''}`} role="status" data-testid="dream-result">
          {result.text} <a href={buildHash('wiki', null, { path: 'INDEX.md' })}>Open INDEX.md</a>
        </div>
      ) : null}
      {status.isPending ? (
        <Loading label="Loading Dream status…" />
      ) : status.isError ? (
        <ErrorState error={status.error} onRetry={() => void status.refetch()} />
      ) : (
        <div className="cards">
          <section className="card" aria-label="Pending">
            <h3>Pending</h3>
            <div data-testid="dream-pending">
              {plural(s!.pendingSessions, 'session')} · {plural(s!.pendingNotes, 'note')}
            </div>
            <div className="muted small">
              Sessions with new visible messages since their watermark, and notes changed since processed.
            </div>
          </section>
          <section className="card" aria-label="Schedule">
            <h3>Schedule</h3>
            {config.isPending || !draft ? (
              <Loading />
            ) : config.isError ? (
              <ErrorState error={config.error} onRetry={() => void config.refetch()} />
            ) : (
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  if (isDirty) save.mutate(draft);
                }}
              >
                <label style={{ display: 'flex', gap: 6, alignItems: 'center' }}>
                  <input
                    type="checkbox"
                    checked={draft.enabled}
                    onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })}
                  />
                  Run on a schedule
                </label>
                <label className="muted small" style={{ display: 'block', marginTop: 8 }}>
                  Cron expression (5 fields, UTC)
                  <input
                    className="mono"
                    style={{ display: 'block', width: '100%', marginTop: 2 }}
                    value={draft.schedule}
                    placeholder="0 2 * * *"
                    disabled={!draft.enabled}
                    onChange={(e) => setDraft({ ...draft, schedule: e.target.value })}
                  />
                </label>
                <div style={{ display: 'flex', gap: 8, alignItems: 'center', marginTop: 8 }}>
                  <button type="submit" disabled={!isDirty || save.isPending}>
                    {save.isPending ? 'Saving…' : 'Save'}
                  </button>
                  {isDirty ? <span className="muted small">Unsaved</span> : null}
                </div>
                {save.isError ? <p className="error-text small">{describeError(save.error)}</p> : null}
              </form>
            )}
            <div className="muted small" style={{ marginTop: 8 }}>
              Next run: {s!.enabled && s!.nextRunAt ? fmtTime(s!.nextRunAt) : 'not scheduled (Run now still works)'}
            </div>
          </section>
          <section className="card" aria-label="Lint">
            <h3>Lint</h3>
            <button type="button" onClick={() => lint.mutate()} disabled={lint.isPending}>
              {lint.isPending ? 'Linting…' : 'Run lint'}
            </button>
            {lint.data ? (
              <div style={{ marginTop: 8 }} data-testid="lint-result">
                {plural(lint.data.issues, 'finding')}.{' '}
                <a href={buildHash('wiki', null, { path: 'LINT.md' })}>Open LINT.md</a>
                <ul className="small" style={{ paddingLeft: 18, margin: '6px 0 0' }}>
                  {lint.data.findings.slice(0, 8).map((f, i) => (
                    <li key={i}>
                      <b>{f.category.replace(/_/g, ' ')}</b> <span className="mono">{f.path}</span>: {f.message}
                    </li>
                  ))}
                  {lint.data.findings.length > 8 ? (
                    <li className="muted">…and {lint.data.findings.length - 8} more in LINT.md</li>
                  ) : null}
                </ul>
                <ForgottenMentions findings={lint.data.findings} />
              </div>
            ) : lint.isError ? (
              <p className="error-text small">{describeError(lint.error)}</p>
            ) : (
              <div className="muted small" style={{ marginTop: 8 }}>
                Broken links, orphans, missing front matter, stale or low-confidence pages, index drift. Writes LINT.md
                only.
              </div>
            )}
          </section>
        </div>
      )}
      <h3>Last runs (LOG.md)</h3>
      {s && s.lastRuns.length === 0 ? (
        <Empty title="Dream has not run yet" />
      ) : s ? (
        <table className="grid" data-testid="dream-runs">
          <thead>
            <tr>
              <th style={{ width: 220 }}>When</th>
              <th>Summary</th>
            </tr>
          </thead>
          <tbody>
            {s.lastRuns.map((r, i) => (
              <tr key={i}>
                <td className="mono">{r.at}</td>
                <td>{r.summary}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

const dirty = (a: { enabled: boolean; schedule: string }, b: { enabled: boolean; schedule: string }) =>
  a.enabled !== b.enabled || a.schedule.trim() !== b.schedule.trim();
