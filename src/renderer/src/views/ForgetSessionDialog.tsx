import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { describeError } from '../api/errors';
import { buildHash, navigate } from '../router';
import { plural, shortId } from '../format';
import { Dialog } from '../components/Dialog';
import { ErrorState, Loading } from '../components/States';
import { invalidateEverything } from '../queries';
import { ForgetWikiPreview } from '../components/ForgetWikiPreview';

/** Forget with a preview: the dry run says exactly what goes and what stays, then the user confirms. */
export function ForgetSessionDialog({
  sessionId,
  title,
  onClose,
}: {
  sessionId: string;
  title: string | null;
  onClose(): void;
}) {
  const client = useQueryClient();
  const preview = useQuery({
    queryKey: ['forget-preview', sessionId],
    queryFn: () => api().call('sessions.delete', { sessionId, dryRun: true }),
    staleTime: 0,
    gcTime: 0,
  });
  const forget = useMutation({
    mutationFn: () => api().call('sessions.delete', { sessionId, dryRun: false }),
    onSuccess: async (result) => {
      onClose();
      navigate(buildHash('sessions'));
      // The forgotten sessions are gone: drop their queries rather than refetch them into 404s.
      for (const id of result.sessionIds) {
        for (const key of ['session', 'messages', 'forget-preview']) client.removeQueries({ queryKey: [key, id] });
      }
      await invalidateEverything(client);
    },
  });
  const p = preview.data;
  return (
    <Dialog
      title={`Forget “${title || shortId(sessionId)}”?`}
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
      {preview.isPending ? (
        <Loading label="Working out what would be forgotten…" />
      ) : preview.isError ? (
        <ErrorState error={preview.error} onRetry={() => void preview.refetch()} />
      ) : (
        <div className="forget-preview" data-testid="forget-preview">
          <p>
            {plural(p!.sessionIds.length, 'session')} (with team members and side chats),{' '}
            {plural(p!.messagesRemoved, 'message')} and {plural(p!.evidenceRemoved, 'evidence row')} will be removed.
            This cannot be undone.
          </p>
          <h4>Facts that will be deleted ({p!.deleted.length})</h4>
          {p!.deleted.length ? (
            <ul data-testid="preview-deleted">
              {p!.deleted.map((f) => (
                <li key={f.id}>
                  <span className={`badge scope-${f.scope}`}>{f.scope}</span> {f.text}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">None: no fact depends only on this session.</p>
          )}
          <h4>Facts kept because other sessions support them ({p!.kept.length})</h4>
          {p!.kept.length ? (
            <ul data-testid="preview-kept">
              {p!.kept.map((f) => (
                <li key={f.id}>
                  <span className={`badge scope-${f.scope}`}>{f.scope}</span> {f.text}{' '}
                  <span className="muted">
                    — {f.handedToLead ? 'handed to the lead session, ' : ''}still supported by{' '}
                    {f.supportedBy.map(shortId).join(', ')}; reinforcement becomes {f.reinforcementAfter}
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">None.</p>
          )}
          <ForgetWikiPreview wiki={p!.wiki} />
        </div>
      )}
      {forget.isError ? <p className="error-text">{describeError(forget.error)}</p> : null}
    </Dialog>
  );
}
