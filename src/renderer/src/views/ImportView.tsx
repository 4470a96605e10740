import { useEffect, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Output } from '../api/client';
import { describeError } from '../api/errors';
import { uploadExport, type ImportJob, type UploadOptions } from '../api/import-upload';
import { buildHash } from '../router';
import { plural } from '../format';
import { invalidateEverything } from '../queries/client';
import { importQueries } from '../queries/misc';
import './import-view.css';

type Result = Output<'import.conversations'>;
type ContextKind = 'none' | 'projectId' | 'workspace' | 'folderId';
type Phase =
  | { step: 'idle' }
  | { step: 'uploading'; loaded: number; total: number }
  | { step: 'importing'; job: ImportJob | null }
  | { step: 'done'; result: Pick<Result, 'extraction'> & NonNullable<ImportJob['report']> }
  | { step: 'failed'; message: string };

const CONTEXTS: { kind: ContextKind; label: string; placeholder: string }[] = [
  { kind: 'none', label: 'None', placeholder: '' },
  { kind: 'projectId', label: 'Project', placeholder: 'my-app' },
  { kind: 'workspace', label: 'Workspace', placeholder: '/home/me/src/my-app' },
  { kind: 'folderId', label: 'Folder', placeholder: 'personal' },
];
const FORMATS = [
  ['auto', 'Detect automatically'],
  ['chatgpt', 'ChatGPT export (conversations.json)'],
  ['claude', 'Claude export (conversations.json)'],
  ['jsonl', 'JSONL transcript'],
] as const;
const POLL_MS = 300;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The job of this process, while it runs or once it has ended. */
async function jobById(id: string | null): Promise<ImportJob | null> {
  const { jobs } = await api().call('import.status', {});
  return (id ? jobs.find((j) => j.id === id) : jobs.find((j) => j.state === 'running')) ?? null;
}

/** Desktop: the path from the native dialog, imported through the contract; progress by polling. */
async function importPath(path: string, options: UploadOptions, onJob: (job: ImportJob | null) => void) {
  let finished = false;
  const call = api()
    .call('import.conversations', { ...options, from: path })
    .finally(() => void (finished = true));
  while (!finished) {
    await Promise.race([call.catch(() => {}), wait(POLL_MS)]);
    if (!finished) onJob(await jobById(null));
  }
  return call;
}

/** Browser: upload, then follow the job the server started until it ends. */
async function importUpload(
  file: File,
  options: UploadOptions,
  onUpload: (loaded: number, total: number) => void,
  onJob: (job: ImportJob | null) => void,
) {
  const started = await uploadExport(file, options, onUpload);
  onJob(started);
  for (;;) {
    const job = await jobById(started.id);
    if (!job) throw new Error('The import was lost (did the server restart?). Importing again continues it.');
    if (job.state === 'failed') throw new Error(job.error?.message ?? 'The import failed');
    if (job.state === 'completed' && job.report && job.extraction) return { ...job.report, extraction: job.extraction };
    onJob(job);
    await wait(POLL_MS);
  }
}

function ProgressBar({ phase }: { phase: Phase }) {
  if (phase.step === 'uploading') {
    const percent = phase.total ? Math.floor((100 * phase.loaded) / phase.total) : 0;
    return (
      <div className="import-progress" data-testid="import-progress" data-step="uploading">
        <progress max={phase.total || 1} value={phase.loaded} aria-label="Upload progress" />
        <span>
          Uploading {mb(phase.loaded)} of {mb(phase.total)} ({percent}%)
        </span>
      </div>
    );
  }
  if (phase.step !== 'importing') return null;
  const job = phase.job;
  const extracting = job?.phase === 'extracting';
  return (
    <div className="import-progress" data-testid="import-progress" data-step="importing">
      <progress max={job?.bytesTotal || 1} value={job?.bytesRead ?? 0} aria-label="Import progress" />
      <span>
        {extracting
          ? 'Extracting facts from the imported conversations…'
          : job
            ? `Importing: ${mb(job.bytesRead)} of ${mb(job.bytesTotal)} read, ${plural(job.conversations, 'conversation')}, ${plural(job.messagesAdded, 'message')} added`
            : 'Starting…'}
      </span>
    </div>
  );
}

function Summary({ result }: { result: Extract<Phase, { step: 'done' }>['result'] }) {
  const owed = result.extraction.pendingSessions;
  return (
    <div className="import-summary" role="status" data-testid="import-summary">
      <h3>{result.interrupted ? 'Import paused' : 'Import finished'}</h3>
      <ul>
        <li>
          {plural(result.conversationsCreated, 'new conversation')}, {result.conversationsUpdated} with new messages,{' '}
          {result.conversationsUnchanged} already imported, {result.conversationsSkipped} skipped
        </li>
        <li>
          {plural(result.messagesAdded, 'message')} added ({result.messagesAlreadyImported} already there,{' '}
          {result.messagesSkipped} system, tool or hidden messages left out)
        </li>
        <li>
          {owed
            ? `Extraction will work through ${plural(owed, 'imported session')} in the background.`
            : 'Extraction has nothing left to do for imported sessions.'}{' '}
          <a href={buildHash('extraction')}>Extraction</a> · <a href={buildHash('sessions')}>Sessions</a>
        </li>
      </ul>
      {result.problemCount ? (
        <details open data-testid="import-problems">
          <summary>{plural(result.problemCount, 'problem')}</summary>
          <ul className="small">
            {result.problems.map((p, i) => (
              <li key={i}>
                <span className="mono">{p.position}</span>: {p.reason}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}

interface FormState {
  format: UploadOptions['format'];
  contextKind: ContextKind;
  contextKey: string;
  file: File | null;
  path: string | null;
}

/** Whatever was chosen, as import.conversations options. */
function optionsOf(form: FormState): UploadOptions {
  const options: UploadOptions = { format: form.format };
  if (form.contextKind !== 'none') options[form.contextKind] = form.contextKey.trim();
  return options;
}

function FileChoice({ desktop, form, set }: { desktop: boolean; form: FormState; set(p: Partial<FormState>): void }) {
  if (desktop) {
    return (
      <div className="import-file-row">
        <button
          type="button"
          data-testid="import-pick"
          onClick={() => void window.evoflux!.pickImportFile!().then((p) => p && set({ path: p }))}
        >
          Choose file…
        </button>
        <span className="mono small">{form.path ?? 'No file chosen'}</span>
      </div>
    );
  }
  return (
    <input
      type="file"
      data-testid="import-file"
      aria-label="Export file"
      accept=".json,.jsonl,.ndjson,application/json"
      onChange={(e) => set({ file: e.target.files?.[0] ?? null })}
    />
  );
}

function ContextChoice({ form, set }: { form: FormState; set(p: Partial<FormState>): void }) {
  const chosen = CONTEXTS.find((c) => c.kind === form.contextKind)!;
  return (
    <>
      {CONTEXTS.map((c) => (
        <label key={c.kind} className="import-radio">
          <input
            type="radio"
            name="import-context"
            value={c.kind}
            checked={form.contextKind === c.kind}
            onChange={() => set({ contextKind: c.kind })}
          />
          {c.label}
        </label>
      ))}
      {form.contextKind !== 'none' ? (
        <input
          type="text"
          data-testid="import-context-key"
          aria-label={chosen.label}
          placeholder={chosen.placeholder}
          value={form.contextKey}
          onChange={(e) => set({ contextKey: e.target.value })}
        />
      ) : null}
    </>
  );
}

function ImportForm(props: { desktop: boolean; busy: boolean; onStart(form: FormState): void }) {
  const { desktop, busy } = props;
  const [form, setForm] = useState<FormState>({
    format: 'auto',
    contextKind: 'none',
    contextKey: '',
    file: null,
    path: null,
  });
  const set = (p: Partial<FormState>) => setForm((f) => ({ ...f, ...p }));
  const chosen = desktop ? form.path : form.file;
  const needsKey = form.contextKind !== 'none' && !form.contextKey.trim();
  return (
    <form
      className="import-form"
      onSubmit={(e) => {
        e.preventDefault();
        props.onStart(form);
      }}
    >
      <fieldset disabled={busy}>
        <legend>File</legend>
        <FileChoice desktop={desktop} form={form} set={set} />
      </fieldset>
      <fieldset disabled={busy}>
        <legend>Format</legend>
        <select
          value={form.format}
          data-testid="import-format"
          aria-label="Format"
          onChange={(e) => set({ format: e.target.value as UploadOptions['format'] })}
        >
          {FORMATS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </fieldset>
      <fieldset disabled={busy} data-testid="import-context">
        <legend>Context for the imported sessions</legend>
        <ContextChoice form={form} set={set} />
      </fieldset>
      <button type="submit" className="primary" data-testid="import-submit" disabled={busy || !chosen || needsKey}>
        {busy ? 'Importing…' : 'Import'}
      </button>
    </form>
  );
}

export function ImportView() {
  const client = useQueryClient();
  const desktop = typeof window.evoflux?.pickImportFile === 'function';
  const [phase, setPhase] = useState<Phase>({ step: 'idle' });
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);
  const status = useQuery({ ...importQueries.status(), refetchInterval: 3_000 });
  const busy = phase.step === 'uploading' || phase.step === 'importing';
  const update = (next: Phase) => mounted.current && setPhase(next);

  const start = async (form: FormState) => {
    const options = optionsOf(form);
    update(desktop ? { step: 'importing', job: null } : { step: 'uploading', loaded: 0, total: form.file?.size ?? 0 });
    const onJob = (job: ImportJob | null) => update({ step: 'importing', job });
    const onUpload = (loaded: number, total: number) => update({ step: 'uploading', loaded, total });
    try {
      const result = desktop
        ? await importPath(form.path!, options, onJob)
        : await importUpload(form.file!, options, onUpload, onJob);
      update({ step: 'done', result });
      await invalidateEverything(client);
    } catch (e) {
      update({ step: 'failed', message: e instanceof Error && !('code' in e) ? e.message : describeError(e) });
    }
  };

  const owed = status.data?.extraction.pendingSessions ?? 0;
  return (
    <div className="page import-view" data-testid="import-view">
      <div className="page-header">
        <h2>Import history</h2>
      </div>
      <p className="muted">
        Bring your ChatGPT or Claude conversations (the conversations.json of their data export) or a JSONL transcript.
        Each conversation becomes one session with its real times; importing the same export again adds only what is
        new.
      </p>
      {owed ? (
        <p className="small muted" data-testid="import-extraction-owed">
          Extraction still owes {plural(owed, 'imported session')}.
        </p>
      ) : null}
      <ImportForm desktop={desktop} busy={busy} onStart={(form) => void start(form)} />
      <ProgressBar phase={phase} />
      {phase.step === 'done' ? <Summary result={phase.result} /> : null}
      {phase.step === 'failed' ? (
        <div className="toast error" role="alert" data-testid="import-error">
          {phase.message}
        </div>
      ) : null}
    </div>
  );
}
