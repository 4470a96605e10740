import { statSync } from 'node:fs';
import { FILE_KEY, loadSettings, type Settings } from './settings';
import type { HomePaths } from './home';

/**
 * The settings a person changes while the app runs (the settings screen, `dream config`, a text
 * editor): re-read from settings.yaml when its mtime changes, so a long-running process and a
 * one-shot CLI agree. Only these paths are refreshed: every other key keeps what the process
 * started with (or what a test passed in).
 */
export const LIVE_SETTINGS = [
  ['recall', 'enabled'],
  ['extraction', 'enabled'],
  ['extraction', 'firstAfter'],
  ['extraction', 'every'],
  ['llm', 'baseUrl'],
  ['llm', 'model'],
  ['llm', 'apiKey'],
  ['llm', 'timeoutMs'],
  ['llm', 'maxRetries'],
  ['dream', 'enabled'],
  ['dream', 'schedule'],
  ['dream', 'model'],
] as const;

type Owner = { paths: Pick<HomePaths, 'settings'>; settings: Settings };

const seen = new WeakMap<Settings, number | null>();

/**
 * Asked before every recall, so a missing file (most homes have none) must not throw: building
 * the error cost four times the stat.
 */
const mtimeOf = (file: string): number | null => {
  try {
    return statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? null;
  } catch {
    return null;
  }
};

/** Copies the live keys of `from` into the engine's settings object (in place: services hold it). */
export function applyLiveSettings(target: Settings, from: Settings): void {
  for (const [section, key] of LIVE_SETTINGS) {
    (target[section] as Record<string, unknown>)[key] = (from[section] as Record<string, unknown>)[key];
  }
}

/**
 * Brings the live keys up to date with settings.yaml (a stat when nothing changed). The first
 * call only records the file's mtime: the engine read the file when it opened. A malformed file
 * keeps the last good values. True when something was reloaded.
 */
export function refreshSettings(owner: Owner): boolean {
  const mtime = mtimeOf(owner.paths.settings);
  if (!seen.has(owner.settings)) {
    seen.set(owner.settings, mtime);
    return false;
  }
  if (seen.get(owner.settings) === mtime) return false;
  seen.set(owner.settings, mtime);
  if (mtime === null) return false;
  const loaded = loadSettings(owner.paths.settings);
  // An unreadable file keeps the values in use; a bad key alone falls back to its default.
  if (loaded.problems.some((p) => p.key === FILE_KEY)) return false;
  applyLiveSettings(owner.settings, loaded.settings);
  return true;
}

/** After this process wrote settings.yaml itself: adopt the values and the new mtime. */
export function adoptWrittenSettings(owner: Owner, written: Settings): void {
  applyLiveSettings(owner.settings, written);
  seen.set(owner.settings, mtimeOf(owner.paths.settings));
}
