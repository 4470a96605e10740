import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Output } from '../api/client';
import { ApiError, describeError } from '../api/errors';
import { QueryView } from '../components/QueryView';
import { useAnnounce } from '../components/Announcer';
import { settingsQueries } from '../queries/misc';
import { editableSettings, type EditableSettings } from '../../../shared/commands/settings';
import type { Route } from '../router';
import { SettingsProblems } from '../components/SettingsProblems';

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

/** A value shown at once while saving, then whatever was saved (a refetch wins). */
function useOptimistic(saved: boolean): [boolean, (v: boolean) => void] {
  const [shown, setShown] = useState(saved);
  const [seen, setSeen] = useState(saved);
  if (seen !== saved) {
    setSeen(saved);
    setShown(saved);
  }
  return [shown, setShown];
}

function Switch({
  checked,
  disabled,
  onChange,
  testId,
  setting,
  children,
}: {
  checked: boolean;
  disabled: boolean;
  onChange(v: boolean): void;
  testId: string;
  setting: string;
  children: ReactNode;
}) {
  return (
    <label className="switch">
      <input
        type="checkbox"
        role="switch"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
        data-testid={testId}
      />
      {children} <span className="mono muted small">{setting}</span>
    </label>
  );
}

function MemorySwitches({ values }: { values: View }) {
  const client = useQueryClient();
  const announce = useAnnounce();
  const [recall, setRecall] = useOptimistic(values.recall.enabled);
  const [extraction, setExtraction] = useOptimistic(values.extraction.enabled);
  const toggle = useMutation({
    mutationFn: (v: EditableSettings) => api().call('settings.set', { values: v }),
    onError: () => {
      setRecall(values.recall.enabled);
      setExtraction(values.extraction.enabled);
    },
    onSuccess: async (r) => {
      const on = (v: boolean) => (v ? 'on' : 'off');
      announce(`Memory recall is ${on(r.values.recall.enabled)}; extraction is ${on(r.values.extraction.enabled)}.`);
      await client.invalidateQueries();
    },
  });
  return (
    <section className="card" aria-labelledby="switches-heading">
      <h3 id="switches-heading">Memory</h3>
      <Switch
        checked={recall}
        disabled={toggle.isPending}
        testId="switch-recall"
        setting="recall.enabled"
        onChange={(v) => {
          setRecall(v);
          toggle.mutate({ recall: { enabled: v } });
        }}
      >
        Recall: agents get remembered facts at the start of each turn
      </Switch>
      <Switch
        checked={extraction}
        disabled={toggle.isPending}
        testId="switch-extraction"
        setting="extraction.enabled"
        onChange={(v) => {
          setExtraction(v);
          toggle.mutate({ extraction: { enabled: v } });
        }}
      >
        Extraction: completed responses are turned into facts
      </Switch>
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

/** Everything a field row needs: its value as typed, its change handler and its explained error. */
interface FormApi {
  draft: Draft;
  errorOf(f: Field): string | undefined;
  input(f: Field, props?: Record<string, unknown>): (p: Record<string, unknown>) => ReactNode;
  set(f: Field): (e: React.ChangeEvent<HTMLInputElement>) => void;
}

function useSettingsForm(data: Output<'settings.get'>) {
  const client = useQueryClient();
  const announce = useAnnounce();
  const saved = useMemo(() => draftOf(data.values), [data.values]);
  const [draft, setDraft] = useState<Draft>(saved);
  const [seen, setSeen] = useState(saved);
  if (seen !== saved) {
    setSeen(saved);
    setDraft(saved);
  }
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
  const set = (f: Field) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setDraft({ ...draft, [f]: e.target.type === 'checkbox' ? e.target.checked : e.target.value });
  const form: FormApi = {
    draft,
    set,
    errorOf: (f) => local[f] ?? (serverField === f ? describeError(save.error) : undefined),
    input: (f, props = {}) =>
      function Input(p) {
        return <input {...p} {...props} value={String(draft[f])} onChange={set(f)} />;
      },
  };
  const reset = () => setDraft(saved);
  return {
    form,
    save,
    problems: Object.keys(local).length,
    dirty: Object.keys(pending).length > 0,
    serverField,
    reset,
  };
}

function CadenceSection({ form }: { form: FormApi }) {
  return (
    <section className="card" aria-labelledby="extraction-heading">
      <h3 id="extraction-heading">Extraction cadence</h3>
      <FieldRow
        field="extraction.firstAfter"
        label="First run after"
        error={form.errorOf('extraction.firstAfter')}
        help="completed responses"
      >
        {form.input('extraction.firstAfter', { inputMode: 'numeric' })}
      </FieldRow>
      <FieldRow
        field="extraction.every"
        label="Then every"
        error={form.errorOf('extraction.every')}
        help="more completed responses"
      >
        {form.input('extraction.every', { inputMode: 'numeric' })}
      </FieldRow>
    </section>
  );
}

const API_KEY_HELP: Record<View['llm']['apiKey'], string> = {
  settings: 'A key is set in settings.yaml; type a new one to replace it.',
  environment: 'The key comes from EVOFLUX_LLM_API_KEY; a key typed here takes precedence.',
  none: 'No key is set (most local servers need none).',
};

function EndpointSection({ form, apiKey }: { form: FormApi; apiKey: View['llm']['apiKey'] }) {
  return (
    <section className="card" aria-labelledby="llm-heading">
      <h3 id="llm-heading">Model endpoint (OpenAI-compatible)</h3>
      <FieldRow
        field="llm.baseUrl"
        label="Address"
        error={form.errorOf('llm.baseUrl')}
        help="e.g. http://127.0.0.1:11434/v1 for Ollama. Empty: the built-in offline extractor, summarizer and Dream."
      >
        {form.input('llm.baseUrl', {
          className: 'mono wide',
          placeholder: 'http://127.0.0.1:11434/v1',
          spellCheck: false,
        })}
      </FieldRow>
      <FieldRow field="llm.model" label="Model" error={form.errorOf('llm.model')}>
        {form.input('llm.model', { className: 'mono', spellCheck: false })}
      </FieldRow>
      <FieldRow field="llm.apiKey" label="API key" error={form.errorOf('llm.apiKey')} help={API_KEY_HELP[apiKey]}>
        {form.input('llm.apiKey', { type: 'password', autoComplete: 'off' })}
      </FieldRow>
      <FieldRow field="llm.timeoutMs" label="Timeout (ms)" error={form.errorOf('llm.timeoutMs')}>
        {form.input('llm.timeoutMs', { inputMode: 'numeric' })}
      </FieldRow>
      <FieldRow field="llm.maxRetries" label="Retries" error={form.errorOf('llm.maxRetries')} help="0 to 5">
        {form.input('llm.maxRetries', { inputMode: 'numeric' })}
      </FieldRow>
      <ConnectionTest draft={form.draft} />
    </section>
  );
}

function DreamSection({ form }: { form: FormApi }) {
  return (
    <section className="card" aria-labelledby="dream-settings-heading">
      <h3 id="dream-settings-heading">Dream</h3>
      <label className="switch">
        <input type="checkbox" checked={Boolean(form.draft['dream.enabled'])} onChange={form.set('dream.enabled')} />
        Run Dream on a schedule <span className="mono muted small">dream.enabled</span>
      </label>
      <FieldRow
        field="dream.schedule"
        label="Schedule"
        error={form.errorOf('dream.schedule')}
        help="5-field cron, in UTC (minute hour day month weekday), e.g. 0 2 * * * = 02:00 UTC daily."
      >
        {form.input('dream.schedule', { className: 'mono', spellCheck: false })}
      </FieldRow>
      <FieldRow
        field="dream.model"
        label="Model for Dream"
        error={form.errorOf('dream.model')}
        help="Empty: the built-in consolidator."
      >
        {form.input('dream.model', { className: 'mono', spellCheck: false })}
      </FieldRow>
    </section>
  );
}

function SettingsForm({ data, focus }: { data: Output<'settings.get'>; focus: string | null }) {
  const { form, save, problems: count, dirty, serverField, reset } = useSettingsForm(data);
  useEffect(() => {
    if (focus) document.getElementById(`setting-${focus.replace('.', '-')}`)?.focus();
  }, [focus]);
  return (
    <form
      className="settings-form"
      aria-label="Settings"
      onSubmit={(e) => {
        e.preventDefault();
        if (dirty && count === 0) save.mutate();
      }}
    >
      <CadenceSection form={form} />
      <EndpointSection form={form} apiKey={data.values.llm.apiKey} />
      <DreamSection form={form} />
      <div className="settings-actions">
        <button
          type="submit"
          className="primary"
          disabled={!dirty || save.isPending || count > 0}
          data-testid="settings-save"
        >
          {save.isPending ? 'Saving…' : 'Save settings'}
        </button>
        <button type="button" disabled={!dirty} onClick={reset}>
          Undo changes
        </button>
        {count ? (
          <span className="error-text small" role="alert">
            {count === 1 ? 'One value needs fixing' : `${count} values need fixing`}
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
            <SettingsProblems problems={d.problems} />
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
