import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { describeError } from '../api/errors';
import { Dialog } from '../components/Dialog';
import { ContextSelect } from '../components/ContextSelect';
import { useAnnounce } from '../components/Announcer';
import { invalidateEverything } from '../queries/client';
import { CONFIDENCES, FACT_KINDS, SCOPES, USER_SCOPE_KINDS, type FactKind, type Scope } from '../../../shared/domain';

interface NewFact {
  text: string;
  kind: FactKind;
  scope: Scope;
  scopeKey: string | undefined;
  confidence: (typeof CONFIDENCES)[number];
}

function useAddFact(fact: NewFact, onAdded: (id: string) => void) {
  const client = useQueryClient();
  const announce = useAnnounce();
  return useMutation({
    mutationFn: () =>
      api().call('facts.create', {
        text: fact.text,
        kind: fact.kind,
        scope: fact.scope,
        scopeKey: fact.scope === 'user' ? '' : (fact.scopeKey ?? ''),
        confidence: fact.confidence,
        actor: 'window',
      }),
    onSuccess: async (r) => {
      announce(r.created ? `Added the fact “${r.fact.text}”.` : `Already known: “${r.fact.text}” (opened it).`);
      await invalidateEverything(client);
      onAdded(r.fact.id);
    },
  });
}

function Pick<T extends string>({
  label,
  value,
  options,
  onChange,
  testId,
}: {
  label: string;
  value: T;
  options: readonly T[];
  onChange(v: T): void;
  testId?: string;
}) {
  return (
    <label className="stacked">
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value as T)} data-testid={testId}>
        {options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    </label>
  );
}

function Fields({ fact, set }: { fact: NewFact; set(f: Partial<NewFact>): void }) {
  const userBlocked = fact.scope === 'user' && !USER_SCOPE_KINDS.includes(fact.kind);
  return (
    <>
      <label className="stacked">
        What to remember
        <textarea
          data-autofocus
          value={fact.text}
          maxLength={500}
          rows={3}
          onChange={(e) => set({ text: e.target.value })}
          aria-describedby="add-fact-help"
        />
      </label>
      <div className="editor-row">
        <Pick label="Kind" value={fact.kind} options={FACT_KINDS} onChange={(kind) => set({ kind })} />
        <Pick
          label="Scope"
          value={fact.scope}
          options={SCOPES}
          onChange={(scope) => set({ scope, scopeKey: undefined })}
          testId="add-fact-scope"
        />
        <Pick
          label="Confidence"
          value={fact.confidence}
          options={CONFIDENCES}
          onChange={(confidence) => set({ confidence })}
        />
      </div>
      {fact.scope !== 'user' ? (
        <label className="stacked">
          Which {fact.scope}
          <ContextSelect
            scope={fact.scope}
            value={fact.scopeKey}
            allowAny={false}
            label={`Which ${fact.scope}`}
            onChange={(scopeKey) => set({ scopeKey })}
          />
        </label>
      ) : null}
      <p id="add-fact-help" className="muted small">
        {userBlocked
          ? 'User scope is only for preferences and profile facts: pick a project, workspace, folder or session.'
          : 'Facts for a session count that session as their evidence; facts for a project, workspace or folder have none until a session confirms them.'}
      </p>
    </>
  );
}

/** Adds a fact by hand for a chosen context: user scope, or an existing project, workspace, folder or session. */
export function AddFactDialog({
  defaults,
  onClose,
  onAdded,
}: {
  defaults: { scope?: Scope; scopeKey?: string };
  onClose(): void;
  onAdded(factId: string): void;
}) {
  const [fact, setFact] = useState<NewFact>({
    text: '',
    kind: 'fact',
    scope: defaults.scope ?? 'project',
    scopeKey: defaults.scopeKey,
    confidence: 'high',
  });
  const add = useAddFact(fact, onAdded);
  const userBlocked = fact.scope === 'user' && !USER_SCOPE_KINDS.includes(fact.kind);
  const ready = Boolean(fact.text.trim() && !userBlocked && (fact.scope === 'user' || fact.scopeKey));
  return (
    <Dialog
      title="Add a fact"
      onClose={onClose}
      actions={
        <>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="primary"
            disabled={!ready || add.isPending}
            onClick={() => add.mutate()}
            data-testid="add-fact-submit"
          >
            {add.isPending ? 'Adding…' : 'Add fact'}
          </button>
        </>
      }
    >
      <form
        className="stacked-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) add.mutate();
        }}
      >
        <Fields fact={fact} set={(f) => setFact({ ...fact, ...f })} />
        {add.isError ? (
          <p className="error-text" role="alert">
            {describeError(add.error)}
          </p>
        ) : null}
      </form>
    </Dialog>
  );
}
