import { useEffect } from 'react';
import { api, useAuth } from './api/client';
import { buildHash, navigate, useRoute, VIEWS, type Route, type View } from './router';
import { OverviewView } from './views/OverviewView';
import { SearchView } from './views/SearchView';
import { FactsView } from './views/FactsView';
import { SessionsView } from './views/SessionsView';
import { WikiView } from './views/WikiView';
import { ExtractionView } from './views/ExtractionView';
import { DreamView } from './views/DreamView';
import { SettingsView } from './views/SettingsView';
import { ImportView } from './views/ImportView';
import { TokenGate } from './components/TokenGate';
import { AnnouncerProvider, VIEW_CHANGED } from './components/Announcer';
import { useTheme, THEMES, type ThemeChoice } from './theme';
import { useChangeFeed } from './useChangeFeed';

const LABELS: Record<View, string> = {
  overview: 'Overview',
  search: 'Search',
  facts: 'Facts',
  sessions: 'Sessions',
  wiki: 'Wiki',
  extraction: 'Extraction',
  dream: 'Dream',
  settings: 'Settings',
  import: 'Import history',
};

const THEME_LABEL: Record<ThemeChoice, string> = { system: 'System', light: 'Light', dark: 'Dark' };

function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement ||
    (target instanceof HTMLElement && target.isContentEditable)
  );
}

/** Alt+1…9 switch views; "/" jumps to the current view's search box. */
function useShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey && /^[1-9]$/.test(e.key)) {
        e.preventDefault();
        navigate(buildHash(VIEWS[Number(e.key) - 1]!));
      } else if (e.key === '/' && !isTyping(e.target) && !e.ctrlKey && !e.metaKey) {
        const search = document.querySelector<HTMLElement>('[data-search-box]');
        if (search) {
          e.preventDefault();
          search.focus();
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

function ThemeToggle() {
  const [theme, setTheme] = useTheme();
  return (
    <label className="theme-toggle small">
      Theme
      <select value={theme} onChange={(e) => setTheme(e.target.value as ThemeChoice)} aria-label="Colour theme">
        {THEMES.map((t) => (
          <option key={t} value={t}>
            {THEME_LABEL[t]}
          </option>
        ))}
      </select>
    </label>
  );
}

function Sidebar({ route }: { route: Route }) {
  return (
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
              aria-keyshortcuts={`Alt+${i + 1}`}
            >
              {LABELS[v]}
            </a>
          </li>
        ))}
      </ul>
      <div className="sidebar-foot">
        <ThemeToggle />
        <div className="transport small" data-testid="transport">
          {api().transport === 'ipc' ? 'Desktop (IPC)' : 'Browser (HTTP)'}
        </div>
      </div>
    </nav>
  );
}

function CurrentView({ route }: { route: Route }) {
  switch (route.view) {
    case 'overview':
      return <OverviewView />;
    case 'search':
      return <SearchView route={route} />;
    case 'facts':
      return <FactsView route={route} />;
    case 'sessions':
      return <SessionsView route={route} />;
    case 'wiki':
      return <WikiView route={route} />;
    case 'extraction':
      return <ExtractionView />;
    case 'dream':
      return <DreamView />;
    case 'settings':
      return <SettingsView route={route} />;
    case 'import':
      return <ImportView />;
    default:
      return null;
  }
}

function Shell() {
  const route = useRoute();
  useShortcuts();
  useChangeFeed();
  // Each view names itself in the window title too.
  useEffect(() => {
    document.title = `${LABELS[route.view]} · EvoFlux Memory`;
    window.dispatchEvent(new Event(VIEW_CHANGED));
  }, [route.view]);
  return (
    <div className="app">
      <a
        className="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <Sidebar route={route} />
      <main className="content" id="main" tabIndex={-1}>
        <h1 className="visually-hidden">{LABELS[route.view]}</h1>
        <CurrentView route={route} />
      </main>
    </div>
  );
}

export function App() {
  const { authenticated, gateMessage } = useAuth();
  if (!authenticated) return <TokenGate message={gateMessage} />;
  return (
    <AnnouncerProvider>
      <Shell />
    </AnnouncerProvider>
  );
}
