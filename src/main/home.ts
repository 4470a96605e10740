import os from 'node:os';
import path from 'node:path';
import { ensurePrivateDir, ensurePrivateFile, refuseSymlink, repairHome } from './private-fs';

/** Where a data home's pieces live. One home = one memory. */
export interface HomePaths {
  root: string;
  db: string;
  wiki: string;
  locks: string;
  settings: string;
  httpToken: string;
  /** Where a running HTTP door (serve, the desktop app) says which address it listens on. */
  httpServer: string;
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
    httpServer: path.join(root, 'http-server.json'),
    logs: path.join(root, 'logs'),
    log: path.join(root, 'logs', 'evoflux.log'),
  };
}

/**
 * Creates the home (0700) or repairs an existing one others could read, then makes sure the
 * database file exists as 0600 before SQLite opens it (SQLite gives -wal and -shm the same
 * mode). A database, WAL or shared-memory file that is a symlink is refused.
 */
export function ensureHome(root: string): HomePaths {
  const p = homePaths(root);
  const walFiles = [`${p.db}-wal`, `${p.db}-shm`];
  repairHome(p.root, {
    dirs: [p.wiki, p.locks, p.logs, path.join(p.root, 'wiki-export')],
    files: [p.db, ...walFiles, p.settings, p.httpToken, p.httpServer],
  });
  ensurePrivateDir(p.locks);
  ensurePrivateDir(p.logs);
  for (const f of walFiles) refuseSymlink(f);
  ensurePrivateFile(p.db);
  return p;
}
