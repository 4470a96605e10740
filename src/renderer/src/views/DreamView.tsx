import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Output } from '../api/client';
import { describeError } from '../api/errors';
import { buildHash } from '../router';
import { fmtDate, fmtTime, fmtUtc, parseUtcStamp, plural, sessionName } from '../format';
import { Empty } from '../components/States';
import { QueryView } from '../components/QueryView';
import { SettingsProblems } from '../components/SettingsProblems';
import { ForgottenMentions } from '../components/ForgottenMentions';
import { useAnnounce } from '../components/Announcer';
import { dreamKeys, dreamQueries, settingsKeys } from '../queries/misc';
import { wikiKeys } from '../queries/wiki';

type RunResult = Output<'dream.run'>;
type Status = Output<'dream.status'>;

function describeRun(r: RunResult): { text: string; failed: boolean } {
  if (r.status === 'already_running')
    return { text: `Dream is already running elsewhere. ${r.remaining} pending.`, failed: true };
  if (!r.sessionsProcessed && !r.notesProcessed && !r.failed) return { text: 'Nothing to process.', failed: false };
  return {
    text: `${plural(r.sessionsProcessed, 'session')}, ${plural(r.notesProcessed, 'note')} processed; ${plural(r.pagesWritten, 'page')} written${r.failed ? `; ${r.failed} failed` : ''}. ${r.remaining} remaining.`,
    failed: r.failed > 0,
  };
}

const REASON: Record<string, string> = {
  new: 'never consolidated',
  messages: 'new messages',
  evidence: 'new facts',
};

function PendingCard({ status }: { status: Status }) {
  const pending = useQuery(dreamQueries.pending());
  return (
    <section className="card" aria-labelledby="pending-heading">
      <h3 id="pending-heading">Pending</h3>
      <div data-testid="dream-pending">
        {plural(status.pendingSessions, 'session')} · {plural(status.pendingNotes, 'note')}
      </div>
      <QueryView query={pending} loading="Loading what is pending…">
        {(p) =>
          p.sessions.length || p.notes.length ? (
            <ul className="pending-list small" data-testid="dream-pending-list">
              {p.sessions.map((s) => (
                <li key={s.id}>
                  <a href={buildHash('sessions', s.id)}>{sessionName({ id: s.id, title: s.title })}</a>{' '}
                  <span className="muted">
                    {fmtDate(s.createdAt)} · {REASON[s.reason]}
                  </span>
                </li>
              ))}
              {p.totalSessions > p.sessions.length ? (
                <li className="muted">…and {p.totalSessions - p.sessions.length} more sessions</li>
              ) : null}
              {p.notes.map((n) => (
                <li key={n.path}>
                  <a href={buildHash('wiki', null, { path: n.path })}>note {n.name}</a>{' '}
                  <span className="muted">changed since processed</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted small">Nothing is waiting.</p>
          )
        }
      </QueryView>
    </section>
  );
}

type Schedule = { enabled: boolean; schedule: string };
const SCHEDULE_HELP = 'The schedule is kept in UTC in settings.yaml; times below are shown in your local time.';
const dirty = (a: Schedule, b: Schedule) => a.enabled !== b.enabled || a.schedule.trim() !== b.schedule.trim();

function useScheduleSave(adopt: (s: Schedule) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (d: Schedule) =>
      api().call('dream.config.set', { enabled: d.enabled, schedule: d.schedule.trim() || '0 2 * * *' }),
    onSuccess: async (next) => {
      adopt({ ...next });
      await client.invalidateQueries({ queryKey: dreamKeys.all });
      await client.invalidateQueries({ queryKey: settingsKeys.all });
    },
  });
}

function ScheduleForm({ saved }: { saved: Schedule }) {
  const [draft, setDraft] = useState<Schedule>(saved);
  const [seen, setSeen] = useState(saved);
  // Adopt new saved values by value, so a refetch never wipes an edit in progress.
  if (dirty(seen, saved)) {
    setSeen(saved);
    if (!dirty(draft, seen)) setDraft(saved);
  }
  const save = useScheduleSave(setDraft);
  const isDirty = dirty(draft, saved);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (isDirty) save.mutate(draft);
      }}
    >
      <label className="inline-check">
        <input
          type="checkbox"
          checked={draft.enabled}
          onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })}
        />
        Run on a schedule
      </label>
      <label className="stacked small">
        Cron expression (5 fields, in UTC)
        <input
          className="mono"
          value={draft.schedule}
          placeholder="0 2 * * *"
          disabled={!draft.enabled}
          aria-describedby="schedule-help"
          aria-invalid={save.isError}
          onChange={(e) => setDraft({ ...draft, schedule: e.target.value })}
        />
      </label>
      <p className="muted small" id="schedule-help">
        {SCHEDULE_HELP}
      </p>
      <div className="editor-actions">
        <button type="submit" disabled={!isDirty || save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        {isDirty ? <span className="muted small">Unsaved</span> : null}
      </div>
      {save.isError ? (
        <p className="error-text small" role="alert">
          {describeError(save.error)}
        </p>
      ) : null}
    </form>
  );
}

function ScheduleCard({ status }: { status: Status }) {
  const config = useQuery(dreamQueries.config());
  return (
    <section className="card" aria-labelledby="schedule-heading">
      <h3 id="schedule-heading">Schedule</h3>
      <QueryView query={config} loading="Loading the schedule…">
        {(saved) => <ScheduleForm saved={saved} />}
      </QueryView>
      <div className="muted small spaced-top" data-testid="dream-next-run">
        Next run:{' '}
        {status.enabled && status.nextRunAt ? (
          <span title={fmtUtc(status.nextRunAt)}>
            {fmtTime(status.nextRunAt)} (local; {fmtUtc(status.nextRunAt)})
          </span>
        ) : (
          'not scheduled (Run now still works)'
        )}
      </div>
    </section>
  );
}

function LintCard() {
  const client = useQueryClient();
  const lint = useMutation({
    mutationFn: () => api().call('wiki.lint', {}),
    onSuccess: () => client.invalidateQueries({ queryKey: wikiKeys.all }),
  });
  return (
    <section className="card" aria-labelledby="lint-heading">
      <h3 id="lint-heading">Lint</h3>
      <button type="button" onClick={() => lint.mutate()} disabled={lint.isPending}>
        {lint.isPending ? 'Linting…' : 'Run lint'}
      </button>
      {lint.data ? (
        <div className="spaced-top" data-testid="lint-result">
          {plural(lint.data.issues, 'finding')}. <a href={buildHash('wiki', null, { path: 'LINT.md' })}>Open LINT.md</a>
          <ul className="small findings">
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
        <div className="muted small spaced-top">
          Broken links, orphans, missing front matter, stale or low-confidence pages, index drift. Writes LINT.md only.
        </div>
      )}
    </section>
  );
}

function LastRuns({ runs }: { runs: Status['lastRuns'] }) {
  if (runs.length === 0) return <Empty title="Dream has not run yet" />;
  return (
    <div className="table-wrap">
      <table className="grid" data-testid="dream-runs">
        <thead>
          <tr>
            <th scope="col">When (local)</th>
            <th scope="col">What</th>
            <th scope="col">Pages written</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r, i) => {
            const at = parseUtcStamp(r.at);
            return (
              <tr key={i}>
                <td title={r.at}>{at === null ? r.at : fmtTime(at)}</td>
                <td>
                  {r.sessions !== null
                    ? `${plural(r.sessions, 'session')}, ${plural(r.notes ?? 0, 'note')}${r.failed ? `, ${r.failed} failed` : ''}`
                    : r.summary}
                </td>
                <td>
                  {r.pages.length ? (
                    <details>
                      <summary>{plural(r.pagesWritten ?? r.pages.length, 'page')}</summary>
                      <ul className="small page-list">
                        {r.pages.map((p) => (
                          <li key={p}>
                            <a href={buildHash('wiki', null, { path: p })}>{p}</a>
                          </li>
                        ))}
                      </ul>
                    </details>
                  ) : (
                    (r.pagesWritten ?? '—')
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Run Dream now (draining), following its progress, with the outcome shown and read out. */
function useDreamRun() {
  const client = useQueryClient();
  const announce = useAnnounce();
  const [runningHere, setRunningHere] = useState(false);
  const [result, setResult] = useState<{ text: string; failed: boolean } | null>(null);
  const run = useMutation({
    mutationFn: () => api().call('dream.run', { drain: true }),
    onMutate: () => {
      setRunningHere(true);
      setResult(null);
    },
    onSettled: () => setRunningHere(false),
    onSuccess: async (r) => {
      const d = describeRun(r);
      setResult(d);
      announce(d.text, 'quiet');
      await client.invalidateQueries();
    },
    onError: (e) => setResult({ text: describeError(e), failed: true }),
  });
  return { run, result, runningHere };
}

function Progress({ s }: { s: Status | undefined }) {
  return (
    <div data-testid="dream-progress">
      <div className="progress" role="progressbar" aria-label="Dream is running">
        <div />
      </div>
      <div className="muted small">
        Dream is running…{' '}
        {s ? `${plural(s.pendingSessions, 'session')} and ${plural(s.pendingNotes, 'note')} still pending.` : ''}
      </div>
    </div>
  );
}

export function DreamView() {
  const { run, result, runningHere } = useDreamRun();
  const status = useQuery({
    ...dreamQueries.status(),
    // While a run is in progress (here or by the schedule), follow it closely.
    refetchInterval: (q) => (runningHere || q.state.data?.running ? 1_200 : false),
  });
  const running = runningHere || !!status.data?.running;
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
      <SettingsProblems problems={status.data?.settingsProblems} />
      {running ? <Progress s={status.data} /> : null}
      {result ? (
        <div className={`toast${result.failed ? ' error' : ''}`} data-testid="dream-result">
          {result.text} <a href={buildHash('wiki', null, { path: 'INDEX.md' })}>Open INDEX.md</a>
        </div>
      ) : null}
      <QueryView query={status} loading="Loading Dream status…">
        {(st) => (
          <>
            <div className="cards">
              <PendingCard status={st} />
              <ScheduleCard status={st} />
              <LintCard />
            </div>
            <h3>Last runs (LOG.md)</h3>
            <LastRuns runs={st.lastRuns} />
          </>
        )}
      </QueryView>
    </div>
  );
}
