import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Output } from '../api/client';
import { ApiError, describeError } from '../api/errors';
import { QueryView } from '../components/QueryView';
import { useAnnounce } from '../components/Announcer';
import { settingsQueries } from '../queries/misc';
import { editableSettings, type EditableSettings } from '../../../shared/commands/settings';
import type { Route } from '../router';

type View = Output<'settings.get'>['values'];

/** The form's fields: every value as typed (numbers too), keyed by their settings.yaml path. */
const FIELDS = [
  'extraction.firstAfter',
  'extraction.every',
  'llm.baseUrl',
  'llm.model',
  'llm.apiKey',
  'llm.timeoutMs',
  'llm.maxRetries',
  'dream.enabled',
  'dream.schedule',
  'dream.model',
] as const;
type Field = (typeof FIELDS)[number];
type Draft = Record<Field, string | boolean>;
const NUMERIC = new Set<Field>(['extraction.firstAfter', 'extraction.every', 'llm.timeoutMs', 'llm.maxRetries']);

function draftOf(v: View): Draft {
  return {
    'extraction.firstAfter': String(v.extraction.firstAfter),
    'extraction.every': String(v.extraction.every),
    'llm.baseUrl': v.llm.baseUrl,
    'llm.model': v.llm.model,
    'llm.apiKey': '',
    'llm.timeoutMs': String(v.llm.timeoutMs),
    'llm.maxRetries': String(v.llm.maxRetries),
    'dream.enabled': v.dream.enabled,
    'dream.schedule': v.dream.schedule,
    'dream.model': v.dream.model,
  };
}

/** Only what changed, typed as settings.set wants it (an empty key field means "leave the key"). */
function changes(draft: Draft, saved: Draft): EditableSettings {
  const out: Record<string, Record<string, unknown>> = {};
  for (const f of FIELDS) {
    if (draft[f] === saved[f] || (f === 'llm.apiKey' && draft[f] === '')) continue;
    const [section, key] = f.split('.') as [string, string];
    const raw = draft[f];
    const value = NUMERIC.has(f) ? (String(raw).trim() === '' ? Number.NaN : Number(raw)) : raw;
    (out[section] ??= {})[key] = value;
  }
  return out as EditableSettings;
}

/** Every invalid value, explained next to its field, from the same schema the engine checks. */
function problems(values: EditableSettings): Partial<Record<Field, string>> {
  const parsed = editableSettings.safeParse(values);
  if (parsed.success) return {};
  const out: Partial<Record<Field, string>> = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path.join('.') as Field;
    out[field] ??= issue.message;
  }
  return out;
}

function FieldRow({
  field,
  label,
  help,
  error,
  children,
}: {
  field: Field;
  label: string;
  help?: ReactNode;
  error?: string;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby': string }) => ReactNode;
}) {
  const id = `setting-${field.replace('.', '-')}`;
  return (
    <div className={`setting${error ? ' invalid' : ''}`} data-field={field}>
      <label htmlFor={id}>
        {label} <span className="mono muted small">{field}</span>
      </label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': `${id}-help ${id}-error` })}
      <div id={`${id}-help`} className="muted small">
        {help}
      </div>
      <div id={`${id}-error`} className="error-text small" data-testid={`error-${field}`}>
        {error ?? ''}
      </div>
    </div>
  );
}

function MemorySwitches({ values }: { values: View }) {
  const client = useQueryClient();
  const announce = useAnnounce();
  // The switch moves at once; the saved state follows (and wins) when settings.yaml is written.
  const [recall, setRecall] = useState(values.recall.enabled);
  const [extraction, setExtraction] = useState(values.extraction.enabled);
  useEffect(() => setRecall(values.recall.enabled), [values.recall.enabled]);
  useEffect(() => setExtraction(values.extraction.enabled), [values.extraction.enabled]);
  const toggle = useMutation({
    mutationFn: (v: EditableSettings) => api().call('settings.set', { values: v }),
    onError: () => {
      setRecall(values.recall.enabled);
      setExtraction(values.extraction.enabled);
    },
    onSuccess: async (r) => {
      announce(
        `Memory recall is ${r.values.recall.enabled ? 'on' : 'off'}; extraction is ${r.values.extraction.enabled ? 'on' : 'off'}.`,
      );
      await client.invalidateQueries();
    },
  });
  return (
    <section className="card" aria-labelledby="switches-heading">
      <h3 id="switches-heading">Memory</h3>
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          checked={recall}
          disabled={toggle.isPending}
          onChange={(e) => {
            setRecall(e.target.checked);
            toggle.mutate({ recall: { enabled: e.target.checked } });
          }}
          data-testid="switch-recall"
        />
        Recall: agents get remembered facts at the start of each turn{' '}
        <span className="mono muted small">recall.enabled</span>
      </label>
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          checked={extraction}
          disabled={toggle.isPending}
          onChange={(e) => {
            setExtraction(e.target.checked);
            toggle.mutate({ extraction: { enabled: e.target.checked } });
          }}
          data-testid="switch-extraction"
        />
        Extraction: completed responses are turned into facts{' '}
        <span className="mono muted small">extraction.enabled</span>
      </label>
      <p className="muted small">
        Off keeps everything stored; nothing new is recalled or learned until it is on again. Searching and browsing
        still work.
      </p>
      {toggle.isError ? <p className="error-text small">{describeError(toggle.error)}</p> : null}
    </section>
  );
}

function ConnectionTest({ draft }: { draft: Draft }) {
  const test = useMutation({
    mutationFn: () =>
      api().call('settings.testConnection', {
        baseUrl: String(draft['llm.baseUrl']),
        model: String(draft['llm.model']),
        ...(draft['llm.apiKey'] ? { apiKey: String(draft['llm.apiKey']) } : {}),
      }),
  });
  return (
    <div className="connection-test">
      <button type="button" onClick={() => test.mutate()} disabled={test.isPending} data-testid="test-connection">
        {test.isPending ? 'Testing…' : 'Test connection'}
      </button>
      <div aria-live="polite" data-testid="connection-result">
        {test.data ? (
          <p className={test.data.ok ? 'ok-text' : 'error-text'}>
            {test.data.ok ? '✓ ' : '✗ '}
            {test.data.message} <span className="muted small">({test.data.elapsedMs} ms)</span>
          </p>
        ) : test.isError ? (
          <p className="error-text">{describeError(test.error)}</p>
        ) : null}
      </div>
    </div>
  );
}

function SettingsForm({ data, focus }: { data: Output<'settings.get'>; focus: string | null }) {
  const client = useQueryClient();
  const announce = useAnnounce();
  const saved = useMemo(() => draftOf(data.values), [data.values]);
  const [draft, setDraft] = useState<Draft>(saved);
  useEffect(() => setDraft(saved), [saved]);
  useEffect(() => {
    if (focus) document.getElementById(`setting-${focus.replace('.', '-')}`)?.focus();
  }, [focus]);
  const pending = changes(draft, saved);
  const local = problems(pending);
  const save = useMutation({
    mutationFn: () => api().call('settings.set', { values: pending }),
    onSuccess: async () => {
      announce('Settings saved to settings.yaml.');
      await client.invalidateQueries();
    },
  });
  const serverField =
    save.error instanceof ApiError && save.error.field ? (save.error.field.replace(/^values\./, '') as Field) : null;
  const errorOf = (f: Field) => local[f] ?? (serverField === f ? describeError(save.error) : undefined);
  const dirty = Object.keys(pending).length > 0;
  const set = (f: Field) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setDraft({ ...draft, [f]: e.target.type === 'checkbox' ? e.target.checked : e.target.value });
  const text =
    (f: Field, props: Record<string, unknown> = {}) =>
    (p: Record<string, unknown>) => (
      <input {...p} {...props} value={String(draft[f])} onChange={set(f)} className={props.className as string} />
    );
  const apiKeyHelp =
    data.values.llm.apiKey === 'settings'
      ? 'A key is set in settings.yaml; type a new one to replace it.'
      : data.values.llm.apiKey === 'environment'
        ? 'The key comes from EVOFLUX_LLM_API_KEY; a key typed here takes precedence.'
        : 'No key is set (most local servers need none).';
  return (
    <form
      className="settings-form"
      aria-label="Settings"
      onSubmit={(e) => {
        e.preventDefault();
        if (dirty && Object.keys(local).length === 0) save.mutate();
      }}
    >
      <section className="card" aria-labelledby="extraction-heading">
        <h3 id="extraction-heading">Extraction cadence</h3>
        <FieldRow
          field="extraction.firstAfter"
          label="First run after"
          error={errorOf('extraction.firstAfter')}
          help="completed responses"
        >
          {text('extraction.firstAfter', { inputMode: 'numeric' })}
        </FieldRow>
        <FieldRow
          field="extraction.every"
          label="Then every"
          error={errorOf('extraction.every')}
          help="more completed responses"
        >
          {text('extraction.every', { inputMode: 'numeric' })}
        </FieldRow>
      </section>
      <section className="card" aria-labelledby="llm-heading">
        <h3 id="llm-heading">Model endpoint (OpenAI-compatible)</h3>
        <FieldRow
          field="llm.baseUrl"
          label="Address"
          error={errorOf('llm.baseUrl')}
          help="e.g. http://127.0.0.1:11434/v1 for Ollama. Empty: the built-in offline extractor, summarizer and Dream."
        >
          {text('llm.baseUrl', { className: 'mono wide', placeholder: 'http://127.0.0.1:11434/v1', spellCheck: false })}
        </FieldRow>
        <FieldRow field="llm.model" label="Model" error={errorOf('llm.model')}>
          {text('llm.model', { className: 'mono', spellCheck: false })}
        </FieldRow>
        <FieldRow field="llm.apiKey" label="API key" error={errorOf('llm.apiKey')} help={apiKeyHelp}>
          {text('llm.apiKey', { type: 'password', autoComplete: 'off' })}
        </FieldRow>
        <FieldRow field="llm.timeoutMs" label="Timeout (ms)" error={errorOf('llm.timeoutMs')}>
          {text('llm.timeoutMs', { inputMode: 'numeric' })}
        </FieldRow>
        <FieldRow field="llm.maxRetries" label="Retries" error={errorOf('llm.maxRetries')} help="0 to 5">
          {text('llm.maxRetries', { inputMode: 'numeric' })}
        </FieldRow>
        <ConnectionTest draft={draft} />
      </section>
      <section className="card" aria-labelledby="dream-settings-heading">
        <h3 id="dream-settings-heading">Dream</h3>
        <label className="switch">
          <input type="checkbox" checked={Boolean(draft['dream.enabled'])} onChange={set('dream.enabled')} />
          Run Dream on a schedule <span className="mono muted small">dream.enabled</span>
        </label>
        <FieldRow
          field="dream.schedule"
          label="Schedule"
          error={errorOf('dream.schedule')}
          help="5-field cron, in UTC (minute hour day month weekday), e.g. 0 2 * * * = 02:00 UTC daily."
        >
          {text('dream.schedule', { className: 'mono', spellCheck: false })}
        </FieldRow>
        <FieldRow
          field="dream.model"
          label="Model for Dream"
          error={errorOf('dream.model')}
          help="Empty: the built-in consolidator."
        >
          {text('dream.model', { className: 'mono', spellCheck: false })}
        </FieldRow>
      </section>
      <div className="settings-actions">
        <button
          type="submit"
          className="primary"
          disabled={!dirty || save.isPending || Object.keys(local).length > 0}
          data-testid="settings-save"
        >
          {save.isPending ? 'Saving…' : 'Save settings'}
        </button>
        <button type="button" disabled={!dirty} onClick={() => setDraft(saved)}>
          Undo changes
        </button>
        {Object.keys(local).length ? (
          <span className="error-text small" role="alert">
            {Object.keys(local).length === 1
              ? 'One value needs fixing'
              : `${Object.keys(local).length} values need fixing`}
          </span>
        ) : null}
        {save.isError && !serverField ? <span className="error-text small">{describeError(save.error)}</span> : null}
      </div>
    </form>
  );
}

export function SettingsView({ route }: { route: Route }) {
  const settings = useQuery(settingsQueries.get());
  return (
    <div className="page" data-testid="settings-view">
      <div className="page-header">
        <h2>Settings</h2>
      </div>
      <QueryView query={settings} loading="Reading settings.yaml…">
        {(d) => (
          <div className="settings">
            {d.fileError ? (
              <p className="error-text" role="alert">
                settings.yaml could not be read ({d.fileError}); the defaults are in use and saving is refused until it
                is fixed.
              </p>
            ) : null}
            <MemorySwitches values={d.values} />
            <SettingsForm data={d} focus={route.params.get('focus')} />
            <section className="card" aria-labelledby="home-heading">
              <h3 id="home-heading">Data home</h3>
              <p>
                <span className="mono">{d.home}</span>
              </p>
              <p className="muted small">
                Settings live in <span className="mono">{d.file}</span>. The data home is chosen when the app starts:
                <span className="mono"> --home DIR</span>, else <span className="mono">EVOFLUX_HOME</span>, else the
                platform’s app data folder. To move it, quit, move the folder and start with the new location.
              </p>
            </section>
          </div>
        )}
      </QueryView>
    </div>
  );
}
