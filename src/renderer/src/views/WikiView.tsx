import { useMemo, useState, type KeyboardEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Output } from '../api/client';
import { describeError } from '../api/errors';
import { buildHash, navigate, type Route } from '../router';
import { QueryView } from '../components/QueryView';
import { Empty } from '../components/States';
import { UserProfile } from '../components/UserProfile';
import { useRoving } from '../components/useRoving';
import { renderWikiMarkdown } from '../markdown';
import { wikiKeys, wikiQueries } from '../queries/wiki';
import { WikiEditor } from './WikiEditor';

type Tree = Output<'wiki.tree'>;
type Entry = Tree['topics'][number];
type Page = Output<'wiki.read'>;

interface Section {
  key: string;
  label: string;
  entries: Entry[];
  alwaysShow?: boolean;
}

const fileName = (p: string) => p.split('/').pop() ?? p;
const slugOf = (p: string) => fileName(p).replace(/\.md$/i, '').toLowerCase();
/** What a person reads in the tree: the page's heading, not its (often hashed) file name. */
const entryLabel = (e: Entry) => e.title ?? e.description ?? fileName(e.path);
const READ_ONLY = (p: string) => p.startsWith('notes/') || p === 'LOG.md';

function sectionsOf(tree: Tree, inbox: Tree['notes']): Section[] {
  return [
    { key: 'system', label: 'System', entries: tree.system, alwaysShow: true },
    { key: 'inbox', label: 'Inbox (unprocessed notes)', entries: inbox, alwaysShow: true },
    { key: 'topics', label: 'Topics', entries: tree.topics, alwaysShow: true },
    { key: 'entities', label: 'Entities', entries: tree.entities },
    { key: 'comparisons', label: 'Comparisons', entries: tree.comparisons },
    { key: 'sources', label: 'Sources', entries: tree.sources },
    { key: 'imports', label: 'Imports', entries: tree.imports },
    { key: 'notes', label: 'All notes', entries: tree.notes },
  ].filter((s) => s.alwaysShow || s.entries.length > 0);
}

type Node =
  { kind: 'section'; section: Section; id: string } | { kind: 'page'; entry: Entry; section: Section; id: string };

const openPage = (p: string) => navigate(buildHash('wiki', null, { path: p }));

/** The visible nodes in order, and the keys: arrows move, Right/Left open and close, Enter opens. */
function useTreeNav(sections: Section[], selected: string) {
  const [collapsed, setCollapsed] = useState<Record<string, boolean>>({ imports: true, notes: true });
  const toggle = (key: string, value = !collapsed[key]) => setCollapsed({ ...collapsed, [key]: value });
  const nodes = useMemo(() => {
    const out: Node[] = [];
    for (const s of sections) {
      out.push({ kind: 'section', section: s, id: `section:${s.key}` });
      if (!collapsed[s.key])
        for (const e of s.entries) out.push({ kind: 'page', entry: e, section: s, id: `${s.key}:${e.path}` });
    }
    return out;
  }, [sections, collapsed]);
  const selectedNode = nodes.find((n) => n.kind === 'page' && n.entry.path === selected)?.id ?? null;
  const { attachList, onKeyDown, itemProps, activeIndex, focusItem, setActiveId } = useRoving({
    items: nodes,
    idOf: (n) => n.id,
    initialId: selectedNode,
    onActivate: (n) => (n.kind === 'page' ? openPage(n.entry.path) : toggle(n.section.key)),
  });
  const onTreeKey = (e: KeyboardEvent) => {
    const node = nodes[activeIndex];
    if (!node || (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft')) return onKeyDown(e);
    e.preventDefault();
    if (node.kind === 'section') toggle(node.section.key, e.key === 'ArrowLeft');
    else if (e.key === 'ArrowLeft') {
      setActiveId(`section:${node.section.key}`);
      focusItem(`section:${node.section.key}`);
    }
  };
  const propsOf = (id: string) => itemProps(nodes.find((n) => n.id === id)!);
  return { collapsed, toggle, attachList, onTreeKey, propsOf };
}

type ItemProps = { 'data-roving-id': string; tabIndex: number; onFocus(): void };

function TreeSection({
  s,
  collapsed,
  selected,
  toggle,
  propsOf,
}: {
  s: Section;
  collapsed: boolean;
  selected: string;
  toggle(key: string): void;
  propsOf(id: string): ItemProps;
}) {
  return (
    <li
      role="treeitem"
      aria-expanded={!collapsed}
      aria-level={1}
      className="tree-section"
      {...propsOf(`section:${s.key}`)}
      onClick={(e) => {
        if (e.target === e.currentTarget || (e.target as HTMLElement).classList.contains('section-label'))
          toggle(s.key);
      }}
    >
      <span className="section-label">
        <span aria-hidden="true">{collapsed ? '▸' : '▾'}</span> {s.label}{' '}
        <span className="badge">{s.entries.length}</span>
      </span>
      {collapsed ? null : s.entries.length === 0 ? (
        <div className="muted small tree-empty">Nothing here yet</div>
      ) : (
        <ul role="group" className="tree">
          {s.entries.map((e) => (
            <li
              key={e.path}
              role="treeitem"
              aria-level={2}
              aria-selected={e.path === selected}
              className={`node${e.path === selected ? ' selected' : ''}`}
              title={e.path}
              data-path={e.path}
              onClick={(ev) => {
                ev.stopPropagation();
                openPage(e.path);
              }}
              {...propsOf(`${s.key}:${e.path}`)}
            >
              {s.key === 'system' ? e.path : entryLabel(e)}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** The wiki tree: one Tab stop; arrows move, Right/Left open and close sections, Enter opens a page. */
function WikiTree({ sections, selected }: { sections: Section[]; selected: string }) {
  const { collapsed, toggle, attachList, onTreeKey, propsOf } = useTreeNav(sections, selected);
  return (
    <ul
      className="plain-scroll wiki-tree"
      role="tree"
      aria-label="Wiki pages"
      data-testid="wiki-tree"
      ref={attachList}
      onKeyDown={onTreeKey}
    >
      {sections.map((s) => (
        <TreeSection
          key={s.key}
          s={s}
          collapsed={collapsed[s.key] ?? false}
          selected={selected}
          toggle={toggle}
          propsOf={propsOf}
        />
      ))}
    </ul>
  );
}

function FrontMatter({ meta, onOpen }: { meta: Page['meta']; onOpen(path: string): void }) {
  const rows: [string, React.ReactNode][] = [];
  if (meta.description) rows.push(['description', meta.description]);
  if (meta.updated) rows.push(['updated', meta.updated]);
  if (meta.confidence)
    rows.push(['confidence', <span className={`conf conf-${meta.confidence}`}>{meta.confidence}</span>]);
  if (meta.tags.length)
    rows.push([
      'tags',
      meta.tags.map((t) => (
        <span key={t} className="badge spaced">
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
          <div key={k} className="contents">
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

/** The session a Dream source page belongs to (front matter `session:`), for its "message #N" links. */
const sessionOfPage = (content: string): string | null => {
  const front = /^\s*---\r?\n([\s\S]*?)\r?\n---/.exec(content)?.[1];
  return front ? (/^session:\s*["']?([^"'\s]+)["']?\s*$/m.exec(front)?.[1] ?? null) : null;
};

function PageBody({ page, all }: { page: Page; all: Entry[] }) {
  const html = useMemo(() => {
    const sessionId = sessionOfPage(page.content);
    return renderWikiMarkdown(page.body, {
      currentPath: page.path,
      resolveSlug: (slug) => {
        const want = slug.replace(/\.md$/i, '').toLowerCase();
        const direct = all.find((e) => e.path.replace(/\.md$/i, '').toLowerCase() === want);
        return (direct ?? all.find((e) => slugOf(e.path) === want.split('/').pop()))?.path ?? null;
      },
      hrefFor: (p) => buildHash('wiki', null, { path: p }),
      messageHref: sessionId ? (seq) => buildHash('sessions', sessionId, { msg: seq }) : undefined,
      titleOf: (p) => all.find((e) => e.path === p)?.title ?? null,
    });
  }, [page, all]);
  if (page.path === 'USER.md') return <UserProfile content={page.content} />;
  if (!page.body.trim()) return <Empty title="This page is empty" />;
  return <div className="markdown" data-testid="wiki-body" dangerouslySetInnerHTML={{ __html: html }} />;
}

function PageView({ path, all }: { path: string; all: Entry[] }) {
  const page = useQuery(wikiQueries.page(path));
  const [editing, setEditing] = useState(false);
  const open = openPage;
  return (
    <QueryView query={page} loading="Loading page…">
      {(p) =>
        editing ? (
          <WikiEditor key={p.path} page={p} all={all} onClose={() => setEditing(false)} />
        ) : (
          <article data-testid="wiki-page" data-path={p.path}>
            <div className="page-header">
              <h2>
                {p.path === 'USER.md'
                  ? 'User profile (USER.md)'
                  : (all.find((e) => e.path === p.path)?.title ?? p.path)}
              </h2>
              {READ_ONLY(p.path) ? (
                <span className="badge tag">{p.path === 'LOG.md' ? 'append-only' : 'source · read-only'}</span>
              ) : (
                <button type="button" className="right" onClick={() => setEditing(true)} data-testid="wiki-edit">
                  Edit
                </button>
              )}
            </div>
            <p className="muted small mono">{p.path}</p>
            {p.path === 'USER.md' ? null : <FrontMatter meta={p.meta} onOpen={open} />}
            <PageBody page={p} all={all} />
          </article>
        )
      }
    </QueryView>
  );
}

export function WikiView({ route }: { route: Route }) {
  const client = useQueryClient();
  const tree = useQuery(wikiQueries.tree(false));
  const inbox = useQuery(wikiQueries.tree(true));
  const selected = route.params.get('path') ?? 'INDEX.md';
  const lint = useMutation({
    mutationFn: () => api().call('wiki.lint', {}),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: wikiKeys.all });
      navigate(buildHash('wiki', null, { path: 'LINT.md' }));
    },
  });
  const sections = useMemo(
    () => (tree.data ? sectionsOf(tree.data, inbox.data?.notes ?? []) : []),
    [tree.data, inbox.data],
  );
  const all = useMemo(() => sections.flatMap((s) => s.entries), [sections]);

  return (
    <div className="split">
      <section className="pane list-pane narrow" aria-labelledby="wiki-heading">
        <div className="pane-title page-header">
          <h2 id="wiki-heading">Wiki</h2>
          <button type="button" className="right" onClick={() => lint.mutate()} disabled={lint.isPending}>
            {lint.isPending ? 'Linting…' : 'Run lint'}
          </button>
        </div>
        {lint.isError ? <p className="error-text small pad">{describeError(lint.error)}</p> : null}
        <QueryView query={tree} loading="Loading the wiki…">
          {() => <WikiTree sections={sections} selected={selected} />}
        </QueryView>
      </section>
      <section className="pane detail-pane" aria-label="Wiki page">
        <PageView key={selected} path={selected} all={all} />
      </section>
    </div>
  );
}
