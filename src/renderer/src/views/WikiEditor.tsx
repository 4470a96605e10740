import { useMemo, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type Output } from '../api/client';
import { ApiError, describeError } from '../api/errors';
import { buildHash } from '../router';
import { UserProfile } from '../components/UserProfile';
import { useAnnounce } from '../components/Announcer';
import { renderWikiMarkdown } from '../markdown';
import { wikiKeys } from '../queries/wiki';

type Page = Output<'wiki.read'>;
type Entry = Output<'wiki.tree'>['topics'][number];

function Preview({ path, text, all }: { path: string; text: string; all: Entry[] }) {
  const html = useMemo(() => {
    if (path === 'USER.md') return '';
    const body = text.replace(/^\s*---\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)/, '');
    return renderWikiMarkdown(body, {
      currentPath: path,
      resolveSlug: (slug) =>
        all.find((e) => e.path.replace(/\.md$/i, '').toLowerCase().endsWith(slug.toLowerCase()))?.path ?? null,
      hrefFor: (p) => buildHash('wiki', null, { path: p }),
    });
  }, [path, text, all]);
  if (path === 'USER.md') return <UserProfile content={text} />;
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

function ConflictBanner({
  conflict,
  error,
  reload,
}: {
  conflict: boolean;
  error: unknown;
  reload(keepMine: boolean): void;
}) {
  return (
    <div className="error-text" role="alert" data-testid="wiki-save-error">
      {conflict
        ? 'This page changed on disk since you opened it (Dream, another window or the CLI wrote it). Your text is still here.'
        : describeError(error)}
      {conflict ? (
        <div className="editor-actions">
          <button type="button" onClick={() => reload(false)}>
            Discard mine and load theirs
          </button>
          <button type="button" onClick={() => reload(true)}>
            Keep mine (save again to replace theirs)
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** Saving with the version the text was based on; a conflict keeps the text and offers both ways out. */
function useSave(page: Page, text: string, setText: (t: string) => void, onClose: () => void) {
  const client = useQueryClient();
  const announce = useAnnounce();
  const [base, setBase] = useState(page.version);
  const save = useMutation({
    mutationFn: () => api().call('wiki.write', { path: page.path, content: text, expectedVersion: base }),
    onSuccess: async () => {
      announce(`Saved ${page.path}.`);
      await client.invalidateQueries({ queryKey: wikiKeys.all });
      onClose();
    },
  });
  const reload = async (keepMine: boolean) => {
    const current = await api().call('wiki.read', { path: page.path });
    setBase(current.version);
    if (!keepMine) setText(current.content);
    save.reset();
  };
  return { save, reload, conflict: save.error instanceof ApiError && save.error.code === 'conflict' };
}

/**
 * Edits a page in place: the Markdown (or USER.md's YAML) beside its preview. Saving goes
 * through the wiki service with the version it was read at, so a change made on disk meanwhile
 * (Dream, an editor, the CLI) is never overwritten silently.
 */
export function WikiEditor({ page, all, onClose }: { page: Page; all: Entry[]; onClose(): void }) {
  const [text, setText] = useState(page.content);
  const { save, reload, conflict } = useSave(page, text, setText, onClose);
  const dirty = text !== page.content;
  return (
    <form
      className="wiki-editor"
      aria-label={`Edit ${page.path}`}
      data-testid="wiki-editor"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <div className="page-header">
        <h2>Editing {page.path}</h2>
        <span className="muted small">{dirty ? 'Unsaved changes' : 'No changes'}</span>
        <div className="right editor-actions">
          <button type="submit" className="primary" disabled={save.isPending || !dirty}>
            {save.isPending ? 'Saving…' : 'Save'}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </div>
      {save.isError ? <ConflictBanner conflict={conflict} error={save.error} reload={(k) => void reload(k)} /> : null}
      <div className="editor-panes">
        <label className="stacked editor-source">
          {page.path === 'USER.md' ? 'YAML' : 'Markdown'}
          <textarea
            className="mono"
            value={text}
            onChange={(e) => setText(e.target.value)}
            spellCheck={false}
            wrap={page.path === 'USER.md' ? 'off' : 'soft'}
            data-testid="wiki-editor-text"
          />
        </label>
        <section className="editor-preview" aria-label="Preview">
          <div className="muted small">Preview</div>
          <Preview path={page.path} text={text} all={all} />
        </section>
      </div>
    </form>
  );
}
