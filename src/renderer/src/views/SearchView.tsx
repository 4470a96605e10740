import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { buildHash, navigate, type Route } from '../router';
import { ContextSelect } from '../components/ContextSelect';
import { QueryView } from '../components/QueryView';
import { Empty } from '../components/States';
import { scopeQueries, searchQueries } from '../queries/misc';
import type { Output } from '../api/client';

type Hit = Output<'memory.search'>['results'][number];

const GROUPS: { source: Hit['source']; label: string }[] = [
  { source: 'fact', label: 'Facts' },
  { source: 'wiki', label: 'Wiki pages' },
  { source: 'dialogue', label: 'Dialogue' },
];

/** A wiki excerpt as text: no machine comments (whole or cut off), link brackets or heading marks. */
export const cleanSnippet = (text: string): string =>
  text
    .replace(/^(?:(?!<!--)[\s\S])*?-->/, '')
    .replace(/<!--[\s\S]*?(-->|$)/g, '')
    .replace(/\[\[([^\]|]+)(?:\|([^\]]+))?\]\]/g, (_m, target: string, label?: string) => label ?? target)
    .replace(/(^|\s)#{1,6}\s/g, '$1')
    .replace(/(^|\s)_([^_]+)_/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();

/** Where a hit lives in the window: the fact, the page, the message in its transcript. */
function hrefOf(hit: Hit): string {
  if (hit.source === 'fact') return buildHash('facts', hit.ref.replace(/^fact:/, ''));
  if (hit.source === 'wiki') return buildHash('wiki', null, { path: hit.citation.path });
  return buildHash('sessions', hit.citation.sessionId ?? null, { mid: hit.citation.messageId });
}

function Results({ hits }: { hits: Hit[] }) {
  return (
    <div className="search-results" data-testid="search-results">
      {GROUPS.map((g) => {
        const group = hits.filter((h) => h.source === g.source);
        return (
          <section key={g.source} aria-labelledby={`hits-${g.source}`} data-testid={`hits-${g.source}`}>
            <h3 id={`hits-${g.source}`}>
              {g.label} <span className="muted">({group.length})</span>
            </h3>
            {group.length === 0 ? (
              <p className="muted small">No matches here.</p>
            ) : (
              <ol className="hits">
                {group.map((h) => (
                  <li key={h.ref}>
                    <a href={hrefOf(h)} className="hit-link" data-ref={h.ref}>
                      {h.source === 'fact' ? h.snippet : h.title}
                    </a>
                    <div className="small muted">
                      {h.source === 'fact' ? h.title : h.source === 'wiki' ? cleanSnippet(h.snippet) : h.snippet}
                      {h.source === 'wiki' ? <span className="mono"> · {h.citation.path}</span> : null}
                    </div>
                  </li>
                ))}
              </ol>
            )}
          </section>
        );
      })}
    </div>
  );
}

function SearchForm({
  q,
  sessionId,
  go,
}: {
  q: string;
  sessionId: string | null;
  go(params: { q?: string; session?: string }): void;
}) {
  const [text, setText] = useState(q);
  const [seen, setSeen] = useState(q);
  if (seen !== q) {
    setSeen(q);
    setText(q);
  }
  return (
    <form
      className="search-form"
      role="search"
      aria-label="Search memory"
      onSubmit={(e) => {
        e.preventDefault();
        go({ q: text.trim() });
      }}
    >
      <label className="stacked grow">
        Words
        <input
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="What are you looking for?  ( / )"
          data-search-box
          data-testid="search-input"
        />
      </label>
      <label className="stacked">
        As seen by the session
        <ContextSelect
          scope="session"
          value={sessionId ?? undefined}
          allowAny={false}
          countLabel="session fact"
          label="Search as this session"
          onChange={(key) => key && go({ session: key })}
        />
      </label>
      <button type="submit" className="primary" disabled={!text.trim() || !sessionId}>
        Search
      </button>
    </form>
  );
}

/**
 * One search box over everything memory holds for a context (memory_search: the context's
 * facts, the wiki pages it may see, and its dialogue), grouped by source.
 */
export function SearchView({ route }: { route: Route }) {
  const q = route.params.get('q') ?? '';
  const sessions = useQuery(scopeQueries.list({ scope: 'session', limit: 100 }));
  const sessionId = route.params.get('session') ?? sessions.data?.contexts[0]?.key ?? null;
  const go = (params: { q?: string; session?: string }) =>
    navigate(buildHash('search', null, { q: params.q ?? q, session: params.session ?? sessionId }), true);
  const results = useQuery({
    ...searchQueries.results({ sessionId: sessionId ?? '', query: q, limit: 20 }),
    enabled: Boolean(sessionId && q.trim()),
  });
  return (
    <div className="page" data-testid="search-view">
      <div className="page-header">
        <h2>Search everything</h2>
        <span className="muted">Facts, wiki pages and dialogue a context can see, ranked.</span>
      </div>
      <SearchForm q={q} sessionId={sessionId} go={go} />
      {!sessionId && !sessions.isPending ? (
        <Empty title="No sessions yet">Search runs as a session sees memory; create one first.</Empty>
      ) : !q.trim() ? (
        <Empty title="Type words and press Enter">
          A session sees its own facts, its project’s, workspace’s and folder’s, and the user’s; the wiki pages of those
          scopes; and its project’s dialogue.
        </Empty>
      ) : (
        <QueryView query={results} loading="Searching…">
          {(d) =>
            d.results.length === 0 ? (
              <Empty title="Nothing found">Try other words, or search as another session.</Empty>
            ) : (
              <Results hits={d.results} />
            )
          }
        </QueryView>
      )}
    </div>
  );
}
