import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';

interface Announcement {
  id: number;
  text: string;
  /** 'quiet': read out only, because the view already shows the same text. */
  tone: 'done' | 'error' | 'quiet';
}

const VISIBLE_MS = 20_000;
/** Dispatched on window by the shell when the person switches views. */
export const VIEW_CHANGED = 'evoflux:view-changed';

const AnnounceContext = createContext<(text: string, tone?: Announcement['tone']) => void>(() => {});

/**
 * One polite live region for the whole window: after a destructive action (forget, merge) the
 * summary of what went and what stayed is shown and read out by screen readers. It stays until
 * the next announcement or until dismissed.
 */
export function AnnouncerProvider({ children }: { children: ReactNode }) {
  const [current, setCurrent] = useState<Announcement | null>(null);
  // Read out at once; the visible card goes after a while, or when another view opens.
  useEffect(() => {
    if (!current) return;
    const timer = setTimeout(() => setCurrent(null), VISIBLE_MS);
    const onView = () => setCurrent(null);
    window.addEventListener(VIEW_CHANGED, onView);
    return () => {
      clearTimeout(timer);
      window.removeEventListener(VIEW_CHANGED, onView);
    };
  }, [current]);
  const announce = useCallback(
    (text: string, tone: Announcement['tone'] = 'done') => setCurrent({ id: Date.now(), text, tone }),
    [],
  );
  return (
    <AnnounceContext.Provider value={announce}>
      {children}
      <div className="announcer" role="status" aria-live="polite" aria-atomic="true" data-testid="announcer">
        {current ? (
          <div
            key={current.id}
            className={
              current.tone === 'quiet' ? 'visually-hidden' : `announcement${current.tone === 'error' ? ' error' : ''}`
            }
          >
            <span>{current.text}</span>
            <button type="button" className="linkish" onClick={() => setCurrent(null)} aria-label="Dismiss message">
              ✕
            </button>
          </div>
        ) : null}
      </div>
    </AnnounceContext.Provider>
  );
}

export const useAnnounce = () => useContext(AnnounceContext);
