import { useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Output } from '../api/client';
import { describeError } from '../api/errors';
import { buildHash, navigate, type Route } from '../router';
import { Empty, ErrorState, Loading } from '../components/States';
import { renderWikiMarkdown } from '../markdown';

type Tree = Output<'wiki.tree'>;
type Entry = Tree['topics'][number];

const SECTIONS: { key: keyof Tree; label: string; alwaysShow?: boolean }[] = [
  { key: 'system', label: 'System', alwaysShow: true },
  { key: 'topics', label: 'Topics', alwaysShow: true },
  { key: 'entities', label: 'Entities' },
  { key: 'comparisons', label: 'Comparisons' },
  { key: 'sources', label: 'Sources' },
  { key: 'imports', label: 'Imports' },
  { key: 'notes', label: 'Inbox (notes)', alwaysShow: true },
];

const fileName = (p: string) => p.split('/').pop() ?? p;
const slugOf = (p: string) => fileName(p).replace(/\.md$/i, '').toLowerCase();

export function WikiView({ route }: { route: Route }) {
  const client = useQueryClient();
  const tree = useQuery({ queryKey: ['wiki.tree'], queryFn: () => api().call('wiki.tree', {}) });
  const selected = route.params.get('path') ?? 'INDEX.md';
  const page = useQuery({
    queryKey: ['wiki.read', selected],
    queryFn: () => api().call('wiki.read', { path: selected }),
  });
  const [collapsed, setCollapsed] = useState<Record<string, boolean>>({ imports: true });
  const lint = useMutation({
    mutationFn: () => api().call('wiki.lint', {}),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['wiki.tree'] });
      await client.invalidateQueries({ queryKey: ['wiki.read'] });
      navigate(buildHash('wiki', null, { path: 'LINT.md' }));
    },
  });

  const all = useMemo(() => (tree.data ? SECTIONS.flatMap((s) => tree.data[s.key]) : []), [tree.data]);
  const html = useMemo(() => {
    if (!page.data) return '';
    return renderWikiMarkdown(page.data.body, {
      currentPath: page.data.path,
      resolveSlug: (slug) => {
        const want = slug.replace(/\.md$/i, '').toLowerCase();
        const direct = all.find((e) => e.path.replace(/\.md$/i, '').toLowerCase() === want);
        return (direct ?? all.find((e) => slugOf(e.path) === want.split('/').pop()))?.path ?? null;
      },
      hrefFor: (p) => buildHash('wiki', null, { path: p }),
    });
  }, [page.data, all]);

  const open = (p: string) => navigate(buildHash('wiki', null, { path: p }));

  return (
    <div className="split">
      <section className="pane list-pane narrow" aria-label="Wiki pages">
        <div className="pane-title page-header">
          <span>Wiki</span>
          <button type="button" className="right" onClick={() => lint.mutate()} disabled={lint.isPending}>
            {lint.isPending ? 'Linting…' : 'Run lint'}
          </button>
        </div>
        {lint.isError ? (
          <p className="error-text small" style={{ padding: '0 14px' }}>
            {describeError(lint.error)}
          </p>
        ) : null}
        {tree.isPending ? (
          <Loading label="Loading the wiki…" />
        ) : tree.isError ? (
          <ErrorState error={tree.error} onRetry={() => void tree.refetch()} />
        ) : (
          <div className="plain-scroll" data-testid="wiki-tree">
            {SECTIONS.filter((s) => s.alwaysShow || tree.data[s.key].length > 0).map((s) => {
              const entries: Entry[] = tree.data[s.key];
              const isCollapsed = collapsed[s.key] ?? false;
              return (
                <div key={s.key}>
                  <button
                    type="button"
                    className="node section"
                    aria-expanded={!isCollapsed}
                    onClick={() => setCollapsed({ ...collapsed, [s.key]: !isCollapsed })}
                  >
                    {isCollapsed ? '▸' : '▾'} {s.label} <span className="badge">{entries.length}</span>
                  </button>
                  {isCollapsed ? null : entries.length === 0 ? (
                    <div className="muted small" style={{ padding: '2px 28px 6px' }}>
                      Nothing here yet
                    </div>
                  ) : (
                    <ul className="tree">
                      {entries.map((e) => (
                        <li key={e.path}>
                          <button
                            type="button"
                            className={`node${e.path === selected ? ' selected' : ''}`}
                            title={e.description ?? e.path}
                            onClick={() => open(e.path)}
                            data-path={e.path}
                          >
                            {s.key === 'system' ? e.path : fileName(e.path)}
                          </button>
                        </li>
                      ))}
                    </ul>
                  )}
                </div>
              );
            })}
          </div>
        )}
      </section>
      <section className="pane detail-pane" aria-label="Wiki page">
        {page.isPending ? (
          <Loading label="Loading page…" />
        ) : page.isError ? (
          <ErrorState error={page.error} onRetry={() => void page.refetch()} />
        ) : (
          <article data-testid="wiki-page" data-path={page.data.path}>
            <div className="page-header">
              <h2 className="mono">{page.data.path}</h2>
              {page.data.path.startsWith('notes/') || page.data.path.startsWith('imports/') ? (
                <span className="badge tag">source · read-only</span>
              ) : null}
            </div>
            <FrontMatter meta={page.data.meta} onOpen={open} />
            {page.data.body.trim() ? (
              <div className="markdown" data-testid="wiki-body" dangerouslySetInnerHTML={{ __html: html }} />
            ) : (
              <Empty title="This page is empty" />
            )}
          </article>
        )}
      </section>
    </div>
  );
}

function FrontMatter({ meta, onOpen }: { meta: Output<'wiki.read'>['meta']; onOpen(path: string): void }) {
  const rows: [string, React.ReactNode][] = [];
  if (meta.description) rows.push(['description', meta.description]);
  if (meta.updated) rows.push(['updated', meta.updated]);
  if (meta.confidence)
    rows.push(['confidence', <span className={`conf conf-${meta.confidence}`}>{meta.confidence}</span>]);
  if (meta.tags.length)
    rows.push([
      'tags',
      meta.tags.map((t) => (
        <span key={t} className="badge" style={{ marginRight: 4 }}>
          {t}
        </span>
      )),
    ]);
  if (meta.sources.length) rows.push(['sources', meta.sources.join(', ')]);
  if (meta.related.length)
    rows.push([
      'related',
      meta.related.map((r) => (
        <button key={r} type="button" className="linkish" onClick={() => onOpen(r)}>
          {r}
        </button>
      )),
    ]);
  if (!rows.length) return null;
  return (
    <div className="front-matter" data-testid="front-matter">
      <dl>
        {rows.map(([k, v]) => (
          <div key={k} style={{ display: 'contents' }}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
