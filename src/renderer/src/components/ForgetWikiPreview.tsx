import type { Output } from '../api/client';
import { buildHash } from '../router';

type WikiReport = Output<'facts.delete'>['wiki'];

const pageLink = (path: string) => buildHash('wiki', null, { path });

/**
 * The wiki part of a forget preview: the machine-written pages that change (Dream's source page
 * and bullets), and the lines a person wrote that will still mention what is forgotten, each with
 * its page and line, for the person to edit.
 */
export function ForgetWikiPreview({ wiki, done = false }: { wiki: WikiReport; done?: boolean }) {
  return (
    <div data-testid="forget-wiki">
      <h4>
        Wiki pages that {done ? 'changed' : 'will change'} ({wiki.pages.length})
      </h4>
      {wiki.pages.length ? (
        <ul data-testid="forget-wiki-pages">
          {wiki.pages.map((p) => (
            <li key={p.path}>
              <span className="badge">{p.change === 'delete' ? 'deleted' : 'edited'}</span>{' '}
              {p.change === 'delete' ? (
                <span className="mono">{p.path}</span>
              ) : (
                <a className="mono" href={pageLink(p.path)}>
                  {p.path}
                </a>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None: Dream has not written this into the wiki.</p>
      )}
      <h4>Mentions that will remain ({wiki.mentions.length})</h4>
      {wiki.mentions.length ? (
        <>
          <p className="muted small">Text a person wrote is never rewritten: edit these lines yourself.</p>
          <ul data-testid="forget-wiki-mentions">
            {wiki.mentions.map((m) => (
              <li key={`${m.path}:${m.line}`}>
                <a className="mono" href={pageLink(m.path)}>
                  {m.path}:{m.line}
                </a>{' '}
                <span className="small">{m.text}</span>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="muted">None.</p>
      )}
      {wiki.pending ? (
        <p className="muted small">The wiki is busy: the clean-up is queued and finishes on its own.</p>
      ) : null}
    </div>
  );
}
