import { useMemo } from 'react';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Output } from '../api/client';
import { describeError } from '../api/errors';
import { buildHash, navigate } from '../router';
import { plural, sessionName, shortId } from '../format';
import { Dialog } from '../components/Dialog';
import { QueryView } from '../components/QueryView';
import { ForgetWikiPreview } from '../components/ForgetWikiPreview';
import { useAnnounce } from '../components/Announcer';
import { sessionKeys, sessionQueries } from '../queries/sessions';
import { invalidateEverything } from '../queries/client';

type Preview = Output<'sessions.delete'>;

/** Session ids named as people know them: title and date, fetched once each. */
function useSessionNames(ids: string[]): (id: string) => string {
  const key = ids.join('\u0000');
  const unique = useMemo(() => [...new Set(key ? key.split('\u0000') : [])], [key]);
  const results = useQueries({ queries: unique.map((id) => ({ ...sessionQueries.detail(id), retry: false })) });
  const names = new Map<string, string>();
  unique.forEach((id, i) => {
    const result = results[i];
    // While a name is on its way, say so rather than calling a titled session untitled.
    if (result?.isPending) names.set(id, `session ${shortId(id)}`);
    else names.set(id, result?.data ? sessionName(result.data) : sessionName({ id, title: null }));
  });
  return (id) => names.get(id) ?? sessionName({ id, title: null });
}

function summary(p: Preview, name: (id: string) => string, title: string): string {
  const others = p.sessionIds.length - 1;
  return (
    `Forgot ${title}${others ? ` and ${plural(others, 'team member or side chat', 'team members and side chats')}` : ''}: ` +
    `${plural(p.deleted.length, 'fact')} deleted, ${plural(p.kept.length, 'fact')} kept` +
    (p.kept.length
      ? ` (still supported by ${[...new Set(p.kept.flatMap((k) => k.supportedBy))].map(name).join(', ')})`
      : '') +
    `; ${plural(p.messagesRemoved, 'message')} and ${plural(p.evidenceRemoved, 'evidence row')} removed.`
  );
}

function PreviewBody({ p, name }: { p: Preview; name: (id: string) => string }) {
  return (
    <div className="forget-preview" data-testid="forget-preview">
      <p>
        {p.sessionIds.length > 1 ? (
          <>This session and its team context ({p.sessionIds.slice(1).map(name).join(', ')}), </>
        ) : (
          'This session, '
        )}
        {plural(p.messagesRemoved, 'message')} and {plural(p.evidenceRemoved, 'evidence row')} will be removed. This
        cannot be undone.
      </p>
      <h3>Facts that will be deleted ({p.deleted.length})</h3>
      {p.deleted.length ? (
        <ul data-testid="preview-deleted">
          {p.deleted.map((f) => (
            <li key={f.id}>
              <span className={`badge scope-${f.scope}`}>{f.scope}</span> {f.text}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None: no fact depends only on this session.</p>
      )}
      <h3>Facts kept because other sessions support them ({p.kept.length})</h3>
      {p.kept.length ? (
        <ul data-testid="preview-kept">
          {p.kept.map((f) => (
            <li key={f.id}>
              <span className={`badge scope-${f.scope}`}>{f.scope}</span> {f.text}{' '}
              <span className="muted">
                — {f.handedToLead ? 'handed to the lead session, ' : ''}still supported by{' '}
                {f.supportedBy.map(name).join(', ')}; reinforcement becomes {f.reinforcementAfter}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None.</p>
      )}
      <ForgetWikiPreview wiki={p.wiki} />
    </div>
  );
}

/**
 * Focuses the session list's tab stop once it is a session that is still there. The list shows
 * the refetched sessions a frame or more after the forget returns; until then its tab stop can
 * still be a forgotten session's row, and focus put there is lost when the row goes.
 */
function focusSessionList(forgotten: ReadonlySet<string>, framesLeft = 60): void {
  requestAnimationFrame(() => {
    const row = document.querySelector<HTMLElement>('[data-testid="sessions-list"] [tabindex="0"]');
    if (row && !forgotten.has(row.dataset.sessionId ?? '')) row.focus();
    else if (framesLeft > 0) focusSessionList(forgotten, framesLeft - 1);
  });
}

/** Forget with a preview: the dry run says exactly what goes and what stays, then the user confirms. */
export function ForgetSessionDialog({
  session,
  onClose,
}: {
  session: { id: string; title: string | null; createdAt: number };
  onClose(): void;
}) {
  const client = useQueryClient();
  const announce = useAnnounce();
  const preview = useQuery(sessionQueries.forgetPreview(session.id));
  const p = preview.data;
  const name = useSessionNames([...(p?.sessionIds ?? []), ...(p?.kept.flatMap((k) => k.supportedBy) ?? [])]);
  const title = `“${sessionName(session)}”`;
  const forget = useMutation({
    mutationFn: () => api().call('sessions.delete', { sessionId: session.id, dryRun: false }),
    onSuccess: async (result) => {
      const text = summary(result, name, title);
      onClose();
      navigate(buildHash('sessions'));
      // The forgotten sessions are gone: drop their queries rather than refetch them into 404s.
      for (const id of result.sessionIds) {
        for (const key of [sessionKeys.detail(id), sessionKeys.messages(id), sessionKeys.forgetPreview(id)])
          client.removeQueries({ queryKey: key });
      }
      announce(text);
      await invalidateEverything(client);
      // Focus returns to the session list, not to a button that no longer exists.
      focusSessionList(new Set(result.sessionIds));
    },
  });
  return (
    <Dialog
      title={`Forget ${title}?`}
      onClose={onClose}
      actions={
        <>
          <button type="button" data-autofocus onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="danger"
            disabled={!p || forget.isPending}
            onClick={() => forget.mutate()}
            data-testid="confirm-forget"
          >
            {forget.isPending ? 'Forgetting…' : 'Forget session'}
          </button>
        </>
      }
    >
      <QueryView query={preview} loading="Working out what would be forgotten…">
        {(data) => <PreviewBody p={data} name={name} />}
      </QueryView>
      {forget.isError ? <p className="error-text">{describeError(forget.error)}</p> : null}
    </Dialog>
  );
}
