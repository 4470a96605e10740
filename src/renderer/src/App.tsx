import { useEffect } from 'react';
import { api } from './api/client';
import { buildHash, navigate, useRoute, VIEWS, type View } from './router';
import { FactsView } from './views/FactsView';
import { SessionsView } from './views/SessionsView';
import { WikiView } from './views/WikiView';
import { ExtractionView } from './views/ExtractionView';
import { DreamView } from './views/DreamView';
import { ImportView } from './views/ImportView';
import { TokenGate } from './components/TokenGate';

const LABELS: Record<View, string> = {
  facts: 'Facts',
  sessions: 'Sessions',
  wiki: 'Wiki',
  extraction: 'Extraction',
  dream: 'Dream',
  import: 'Import history',
};

export function App() {
  const route = useRoute();

  // Alt+1…6 switch views; "/" jumps to the fact search.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing =
        e.target instanceof HTMLInputElement ||
        e.target instanceof HTMLTextAreaElement ||
        e.target instanceof HTMLSelectElement;
      if (e.altKey && /^[1-6]$/.test(e.key)) {
        e.preventDefault();
        navigate(buildHash(VIEWS[Number(e.key) - 1]!));
      } else if (e.key === '/' && !typing) {
        const search = document.getElementById('fact-search');
        if (search) (e.preventDefault(), search.focus());
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (!api().authenticated) return <TokenGate />;
  return (
    <div className="app">
      <nav className="sidebar" aria-label="Views">
        <div className="brand">
          EvoFlux <span>Memory</span>
        </div>
        <ul>
          {VIEWS.map((v, i) => (
            <li key={v}>
              <a
                href={buildHash(v)}
                className={route.view === v ? 'active' : ''}
                aria-current={route.view === v ? 'page' : undefined}
                title={`Alt+${i + 1}`}
              >
                {LABELS[v]}
              </a>
            </li>
          ))}
        </ul>
        <div className="transport muted small" data-testid="transport">
          {api().transport === 'ipc' ? 'Desktop (IPC)' : 'Browser (HTTP)'}
        </div>
      </nav>
      <main className="content" id="main">
        {route.view === 'facts' ? <FactsView route={route} /> : null}
        {route.view === 'sessions' ? <SessionsView route={route} /> : null}
        {route.view === 'wiki' ? <WikiView route={route} /> : null}
        {route.view === 'extraction' ? <ExtractionView /> : null}
        {route.view === 'dream' ? <DreamView /> : null}
        {route.view === 'import' ? <ImportView /> : null}
      </main>
    </div>
  );
}
