import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Output } from '../api/client';
import { ApiError, describeError } from '../api/errors';
import { buildHash } from '../router';
import { fmtTime, fmtUtc, plural, sessionName } from '../format';
import { Dialog } from '../components/Dialog';
import { QueryView } from '../components/QueryView';
import { ErrorState, Loading } from '../components/States';
import { ForgetWikiPreview } from '../components/ForgetWikiPreview';
import { useAnnounce } from '../components/Announcer';
import { factKeys, factQueries } from '../queries/facts';
import { invalidateEverything } from '../queries/client';
import { CONFIDENCES, FACT_KINDS, USER_SCOPE_KINDS } from '../../../shared/domain';
import type { FactKind } from '../../../shared/domain';

type Fact = Output<'facts.get'>;

const COERCION_TEXT: Record<string, string> = {
  'technical-kind-not-user': 'technical kinds cannot be user-global',
  'scope-unavailable': 'the requested scope is not available to the session',
  'work-content-not-user': 'work content (a codebase, tool or workflow) is not user-wide',
  'unknown-scope': 'no scope has that name, so it stayed with the session',
};

const scopeLabel = (s: { scope: string; key: string }) =>
  s.key ? `${s.scope} · ${s.key}` : `${s.scope} (every session)`;
const choiceValue = (s: { scope: string; key: string }) => `${s.scope}\u0000${s.key}`;

interface Draft {
  text: string;
  kind: FactKind;
  confidence: Fact['confidence'];
  target: string;
}

/** Saves what changed; on a merge, leaves the merged-away fact before anything asks for it again. */
function useFactSave(fact: Fact, draft: Draft, onDone: (nextId?: string) => void) {
  const client = useQueryClient();
  const announce = useAnnounce();
  return useMutation({
    mutationFn: (merge: boolean) => {
      const chosen = fact.scopeChoices.find((c) => choiceValue(c) === draft.target);
      const moved = chosen && (chosen.scope !== fact.scope || chosen.key !== fact.scopeKey);
      return api().call('facts.update', {
        factId: fact.id,
        text: draft.text !== fact.text ? draft.text : undefined,
        kind: draft.kind !== fact.kind ? draft.kind : undefined,
        confidence: draft.confidence !== fact.confidence ? draft.confidence : undefined,
        ...(moved ? { scope: chosen.scope, scopeKey: chosen.key } : {}),
        merge,
        actor: 'window',
      });
    },
    onSuccess: async (r) => {
      onDone(r.mergedInto ?? undefined);
      if (r.mergedInto) {
        announce(
          `Merged: “${draft.text}” is now one fact with “${r.fact.text}” (${plural(r.fact.reinforcement, 'supporting session')}).`,
        );
        client.removeQueries({ queryKey: factKeys.detail(fact.id) });
        client.removeQueries({ queryKey: factKeys.history(fact.id) });
      } else if (r.changed) announce('Fact saved; its earlier wording is kept in its history.');
      await invalidateEverything(client);
    },
  });
}

function EditorFields({ fact, draft, set }: { fact: Fact; draft: Draft; set(d: Partial<Draft>): void }) {
  const choices = fact.scopeChoices.filter((c) => c.scope !== 'user' || USER_SCOPE_KINDS.includes(draft.kind));
  const blocked = !USER_SCOPE_KINDS.includes(draft.kind) && draft.target === choiceValue({ scope: 'user', key: '' });
  return (
    <>
      <label className="stacked">
        Text
        <textarea
          value={draft.text}
          onChange={(e) => set({ text: e.target.value })}
          rows={3}
          maxLength={500}
          required
        />
      </label>
      <div className="editor-row">
        <label className="stacked">
          Kind
          <select value={draft.kind} onChange={(e) => set({ kind: e.target.value as FactKind })}>
            {FACT_KINDS.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        <label className="stacked">
          Scope
          <select value={draft.target} onChange={(e) => set({ target: e.target.value })} data-testid="edit-scope">
            {choices.map((c) => (
              <option key={choiceValue(c)} value={choiceValue(c)}>
                {scopeLabel(c)}
              </option>
            ))}
            {blocked ? <option value={draft.target}>user (not for this kind)</option> : null}
          </select>
        </label>
        <label className="stacked">
          Confidence
          <select value={draft.confidence} onChange={(e) => set({ confidence: e.target.value as Draft['confidence'] })}>
            {CONFIDENCES.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
      </div>
      <p className="muted small">
        Scopes offered are the ones every supporting session can see; user scope is only for preferences and profile.
      </p>
    </>
  );
}

function FactEditor({ fact, onDone }: { fact: Fact; onDone(nextId?: string): void }) {
  const [draft, setDraft] = useState<Draft>({
    text: fact.text,
    kind: fact.kind,
    confidence: fact.confidence,
    target: choiceValue({ scope: fact.scope, key: fact.scopeKey }),
  });
  const save = useFactSave(fact, draft, onDone);
  const conflict = save.error instanceof ApiError && save.error.code === 'conflict';
  const blocked = !USER_SCOPE_KINDS.includes(draft.kind) && draft.target === choiceValue({ scope: 'user', key: '' });
  return (
    <form
      className="fact-editor card"
      aria-label="Edit fact"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(false);
      }}
    >
      <EditorFields fact={fact} draft={draft} set={(d) => setDraft({ ...draft, ...d })} />
      {save.isError ? (
        <div className="error-text" role="alert">
          {conflict
            ? 'Another fact in the same scope already says this. Merge the two (their evidence and history become one fact), or word this one differently.'
            : describeError(save.error)}
          {conflict ? (
            <div>
              <button type="button" onClick={() => save.mutate(true)} disabled={save.isPending}>
                Merge them
              </button>
            </div>
          ) : null}
        </div>
      ) : null}
      <div className="editor-actions">
        <button type="submit" className="primary" disabled={save.isPending || !draft.text.trim() || blocked}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function RecallControls({ fact }: { fact: Fact }) {
  const client = useQueryClient();
  const announce = useAnnounce();
  const set = useMutation({
    mutationFn: (mode: 'pin' | 'unpin' | 'pause' | 'resume') =>
      mode === 'pin' || mode === 'unpin'
        ? api().call('facts.pin', { factId: fact.id, pinned: mode === 'pin', actor: 'window' })
        : api().call('facts.pause', { factId: fact.id, paused: mode === 'pause', actor: 'window' }),
    onSuccess: async (r) => {
      announce(
        r.fact.recall === 'pinned'
          ? 'Pinned: always a recall candidate for its scope.'
          : r.fact.recall === 'paused'
            ? 'Paused: kept, never recalled.'
            : 'Back to normal recall.',
      );
      await invalidateEverything(client);
    },
  });
  return (
    <div className="recall-controls" role="group" aria-label="Recall">
      {fact.recall === 'pinned' ? (
        <button type="button" aria-pressed="true" onClick={() => set.mutate('unpin')} disabled={set.isPending}>
          Unpin
        </button>
      ) : (
        <button type="button" aria-pressed="false" onClick={() => set.mutate('pin')} disabled={set.isPending}>
          Pin
        </button>
      )}
      {fact.recall === 'paused' ? (
        <button type="button" onClick={() => set.mutate('resume')} disabled={set.isPending}>
          Resume
        </button>
      ) : (
        <button type="button" onClick={() => set.mutate('pause')} disabled={set.isPending}>
          Pause
        </button>
      )}
      {set.isError ? <span className="error-text small">{describeError(set.error)}</span> : null}
    </div>
  );
}

const CHANGE_TEXT: Record<string, string> = {
  create: 'added',
  edit: 'edited',
  merge: 'merged',
  pin: 'pinned',
  unpin: 'unpinned',
  pause: 'paused',
  resume: 'resumed',
};

function History({ factId }: { factId: string }) {
  const history = useQuery(factQueries.history(factId));
  return (
    <QueryView
      query={history}
      loading="Loading history…"
      isEmpty={(d) => d.entries.length === 0}
      empty={<p className="muted">No changes recorded: this is the fact as it was learned.</p>}
    >
      {(d) => (
        <ol className="history" data-testid="fact-history">
          {d.entries.map((h, i) => (
            <li key={i}>
              <span title={fmtUtc(h.at)}>{fmtTime(h.at)}</span> · <b>{CHANGE_TEXT[h.change] ?? h.change}</b> by{' '}
              {h.actor}
              {h.change === 'edit' || h.change === 'merge' ? (
                <div className="small muted">
                  before: “{h.previous.text}” ({h.previous.kind}, {h.previous.scope}
                  {h.previous.scopeKey ? ` ${h.previous.scopeKey}` : ''}, {h.previous.confidence})
                  {h.note ? ` — ${h.note}` : ''}
                </div>
              ) : null}
            </li>
          ))}
        </ol>
      )}
    </QueryView>
  );
}

function Props({ fact }: { fact: Fact }) {
  return (
    <dl className="props">
      <dt>Kind</dt>
      <dd>{fact.kind}</dd>
      <dt>Scope</dt>
      <dd>
        <span className={`badge scope-${fact.scope}`}>{fact.scope}</span>{' '}
        {fact.scopeKey ? <span className="mono">{fact.scopeKey}</span> : <span className="muted">(every session)</span>}
        {fact.requestedScope ? (
          <div className="coercion" data-testid="coercion">
            asked for <b>{fact.requestedScope}</b>, stored at <b>{fact.scope}</b>:{' '}
            {COERCION_TEXT[fact.coercionReason ?? ''] ?? fact.coercionReason}
          </div>
        ) : null}
      </dd>
      <dt>Confidence</dt>
      <dd className={`conf conf-${fact.confidence}`}>{fact.confidence}</dd>
      <dt>Recall</dt>
      <dd data-testid="fact-recall">
        {fact.recall === 'pinned'
          ? 'pinned: always a candidate for its scope'
          : fact.recall === 'paused'
            ? 'paused: kept, never recalled'
            : 'normal'}
      </dd>
      <dt>Reinforcement</dt>
      <dd>{plural(fact.reinforcement, 'supporting session')}</dd>
      <dt>Origin</dt>
      <dd>{fact.origin}</dd>
      <dt>First seen</dt>
      <dd title={fmtUtc(fact.firstSeenAt)}>{fmtTime(fact.firstSeenAt)}</dd>
      <dt>Last changed</dt>
      <dd title={fmtUtc(fact.updatedAt)}>{fmtTime(fact.updatedAt)}</dd>
      <dt>Id</dt>
      <dd className="mono small">{fact.id}</dd>
    </dl>
  );
}

function Evidence({ fact }: { fact: Fact }) {
  if (fact.evidence.length === 0)
    return <p className="muted">No supporting session: a fact added by hand for its context.</p>;
  return (
    <ul className="evidence" data-testid="evidence">
      {fact.evidence.map((e) => (
        <li key={e.sessionId + (e.messageId ?? '')}>
          <a
            href={buildHash('sessions', e.sessionId, { msg: e.messageSeq ?? undefined })}
            className="evidence-link"
            data-session-id={e.sessionId}
          >
            {sessionName({ id: e.sessionId, title: e.sessionTitle })}
            {e.messageSeq !== null ? ` · message #${e.messageSeq}` : ' · (no message)'}
          </a>
          {e.messageExcerpt ? <blockquote>{e.messageExcerpt}</blockquote> : null}
          <div className="muted small" title={fmtUtc(e.createdAt)}>
            recorded {fmtTime(e.createdAt)}
          </div>
        </li>
      ))}
    </ul>
  );
}

function ForgetFactDialog({ fact, onClose, onGone }: { fact: Fact; onClose(): void; onGone(): void }) {
  const client = useQueryClient();
  const announce = useAnnounce();
  // The dry run: which wiki pages change and which lines a person wrote keep mentioning the fact.
  const preview = useQuery({
    queryKey: [...factKeys.detail(fact.id), 'forget-preview'],
    queryFn: () => api().call('facts.delete', { factId: fact.id, dryRun: true }),
    staleTime: 0,
    gcTime: 0,
  });
  const forget = useMutation({
    mutationFn: () => api().call('facts.delete', { factId: fact.id }),
    onSuccess: async (r) => {
      onClose();
      onGone();
      client.removeQueries({ queryKey: factKeys.detail(fact.id) });
      client.removeQueries({ queryKey: factKeys.history(fact.id) });
      announce(
        `Forgot the fact “${r.fact.text}” and ${plural(r.evidenceRemoved, 'evidence row')}. Sessions and transcripts stay.`,
      );
      await invalidateEverything(client);
    },
  });
  return (
    <Dialog
      title="Forget this fact?"
      onClose={onClose}
      actions={
        <>
          <button type="button" data-autofocus onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="danger" disabled={forget.isPending} onClick={() => forget.mutate()}>
            {forget.isPending ? 'Forgetting…' : 'Forget fact'}
          </button>
        </>
      }
    >
      <p>
        “{fact.text}” and its {plural(fact.evidence.length, 'evidence row')} will be deleted, with its change history.
        Sessions and their transcripts stay. This cannot be undone.
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
  );
}

export function FactDetail({ factId, onGone }: { factId: string; onGone(nextId: string | null): void }) {
  const query = useQuery(factQueries.detail(factId));
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  return (
    <QueryView query={query} loading="Loading fact…">
      {(fact) => (
        <article className="detail" data-testid="fact-detail">
          <header className="detail-header">
            <h2>{fact.text}</h2>
            <div className="detail-actions">
              <button type="button" onClick={() => setEditing(true)} disabled={editing}>
                Edit…
              </button>
              <button type="button" className="danger" onClick={() => setConfirming(true)}>
                Forget fact…
              </button>
            </div>
          </header>
          <RecallControls fact={fact} />
          {editing ? (
            <FactEditor
              key={fact.id}
              fact={fact}
              onDone={(next) => {
                setEditing(false);
                if (next && next !== fact.id) onGone(next);
              }}
            />
          ) : null}
          <Props fact={fact} />
          <h3>Evidence</h3>
          <Evidence fact={fact} />
          <h3>History</h3>
          <History factId={fact.id} />
          {confirming ? (
            <ForgetFactDialog fact={fact} onClose={() => setConfirming(false)} onGone={() => onGone(null)} />
          ) : null}
        </article>
      )}
    </QueryView>
  );
}
