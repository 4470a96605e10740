import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { describeError } from '../api/errors';
import { Dialog } from '../components/Dialog';
import { ContextSelect } from '../components/ContextSelect';
import { useAnnounce } from '../components/Announcer';
import { invalidateEverything } from '../queries/client';
import { CONFIDENCES, FACT_KINDS, SCOPES, USER_SCOPE_KINDS, type FactKind, type Scope } from '../../../shared/domain';

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
  const client = useQueryClient();
  const announce = useAnnounce();
  const [text, setText] = useState('');
  const [kind, setKind] = useState<FactKind>('fact');
  const [scope, setScope] = useState<Scope>(defaults.scope ?? 'project');
  const [scopeKey, setScopeKey] = useState<string | undefined>(defaults.scopeKey);
  const [confidence, setConfidence] = useState<(typeof CONFIDENCES)[number]>('high');
  const userBlocked = scope === 'user' && !USER_SCOPE_KINDS.includes(kind);
  const add = useMutation({
    mutationFn: () =>
      api().call('facts.create', {
        text,
        kind,
        scope,
        scopeKey: scope === 'user' ? '' : (scopeKey ?? ''),
        confidence,
        actor: 'window',
      }),
    onSuccess: async (r) => {
      announce(r.created ? `Added the fact “${r.fact.text}”.` : `Already known: “${r.fact.text}” (opened it).`);
      await invalidateEverything(client);
      onAdded(r.fact.id);
    },
  });
  const ready = text.trim() && !userBlocked && (scope === 'user' || scopeKey);
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
        <label className="stacked">
          What to remember
          <textarea
            data-autofocus
            value={text}
            maxLength={500}
            rows={3}
            onChange={(e) => setText(e.target.value)}
            aria-describedby="add-fact-help"
          />
        </label>
        <div className="editor-row">
          <label className="stacked">
            Kind
            <select value={kind} onChange={(e) => setKind(e.target.value as FactKind)}>
              {FACT_KINDS.map((k) => (
                <option key={k}>{k}</option>
              ))}
            </select>
          </label>
          <label className="stacked">
            Scope
            <select
              value={scope}
              onChange={(e) => {
                setScope(e.target.value as Scope);
                setScopeKey(undefined);
              }}
              data-testid="add-fact-scope"
            >
              {SCOPES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          <label className="stacked">
            Confidence
            <select value={confidence} onChange={(e) => setConfidence(e.target.value as typeof confidence)}>
              {CONFIDENCES.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </label>
        </div>
        {scope !== 'user' ? (
          <label className="stacked">
            Which {scope}
            <ContextSelect
              scope={scope}
              value={scopeKey}
              allowAny={false}
              label={`Which ${scope}`}
              onChange={setScopeKey}
            />
          </label>
        ) : null}
        <p id="add-fact-help" className="muted small">
          {userBlocked
            ? 'User scope is only for preferences and profile facts: pick a project, workspace, folder or session.'
            : 'Facts for a session count that session as their evidence; facts for a project, workspace or folder have none until a session confirms them.'}
        </p>
        {add.isError ? (
          <p className="error-text" role="alert">
            {describeError(add.error)}
          </p>
        ) : null}
      </form>
    </Dialog>
  );
}
