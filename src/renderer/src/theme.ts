import { useEffect, useState } from 'react';

export const THEMES = ['system', 'light', 'dark'] as const;
export type ThemeChoice = (typeof THEMES)[number];
const KEY = 'evoflux-theme';

function stored(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return (THEMES as readonly string[]).includes(v ?? '') ? (v as ThemeChoice) : 'system';
  } catch {
    return 'system';
  }
}

/** Applies a choice to the page: 'system' leaves it to prefers-color-scheme (the stylesheet). */
export function applyTheme(choice: ThemeChoice = stored()): void {
  const root = document.documentElement;
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
}

/** The theme follows the system until the person picks light or dark; the pick is remembered. */
export function useTheme(): [ThemeChoice, (t: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice>(stored);
  useEffect(() => {
    applyTheme(choice);
    try {
      localStorage.setItem(KEY, choice);
    } catch {
      // No storage: the choice lasts for this page.
    }
  }, [choice]);
  return [choice, setChoice];
}
