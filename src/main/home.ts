import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where a data home's pieces live. One home = one memory. */
export interface HomePaths {
  root: string;
  db: string;
  wiki: string;
  locks: string;
  settings: string;
  httpToken: string;
  /** Folder of the log file and its rotated copies (0700). */
  logs: string;
  log: string;
}

/** The platform's per-user app data folder (the same place Electron's userData points at). */
export function defaultHome(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'EvoFlux Memory');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'EvoFlux Memory');
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'EvoFlux Memory');
}

/** `--home` wins over EVOFLUX_HOME, which wins over the platform default. */
export function resolveHome(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = explicit || env.EVOFLUX_HOME || defaultHome(env);
  return path.resolve(chosen);
}

export function homePaths(root: string): HomePaths {
  return {
    root,
    db: path.join(root, 'memory.db'),
    wiki: path.join(root, 'wiki'),
    locks: path.join(root, 'locks'),
    settings: path.join(root, 'settings.yaml'),
    httpToken: path.join(root, 'http-token'),
    logs: path.join(root, 'logs'),
    log: path.join(root, 'logs', 'evoflux.log'),
  };
}

export function ensureHome(root: string): HomePaths {
  const p = homePaths(root);
  mkdirSync(p.root, { recursive: true, mode: 0o700 });
  mkdirSync(p.locks, { recursive: true });
  mkdirSync(p.logs, { recursive: true, mode: 0o700 });
  return p;
}
