import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { invalid } from '../../shared/errors';

export interface PathPlatform {
  platform: NodeJS.Platform;
  home: string;
}

const hostPlatform: PathPlatform = { platform: process.platform, home: os.homedir() };

/** Follows symlinks as far as the path exists; the missing tail is kept as written. */
function realpathNonStrict(absolute: string, p: typeof path): string {
  let head = absolute;
  const tail: string[] = [];
  for (;;) {
    try {
      return tail.length ? p.join(realpathSync.native(head), ...tail.reverse()) : realpathSync.native(head);
    } catch {
      const parent = p.dirname(head);
      if (parent === head) return absolute;
      tail.push(p.basename(head));
      head = parent;
    }
  }
}

/**
 * One folder, one key: `~` expanded, made absolute, `..` resolved, symlinks followed where the
 * path exists, no trailing separator. Windows and macOS file systems are case-insensitive by
 * default, so the key is lower-cased there; Linux keeps case because `/src` and `/SRC` differ.
 */
export function normalizeWorkspacePath(raw: string, env: PathPlatform = hostPlatform): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw invalid('workspace', 'must be a non-empty path');
  if (raw.includes('\0')) throw invalid('workspace', 'must not contain NUL bytes');
  const p = env.platform === 'win32' ? path.win32 : path.posix;
  let value = raw.trim();
  if (value === '~' || value.startsWith('~/') || value.startsWith('~\\')) value = p.join(env.home, value.slice(1));
  if (!p.isAbsolute(value)) throw invalid('workspace', `must be an absolute path (got "${raw}")`);
  let resolved = p.resolve(value);
  if (env.platform === process.platform) resolved = realpathNonStrict(resolved, p);
  const root = p.parse(resolved).root;
  while (resolved.length > root.length && (resolved.endsWith('/') || resolved.endsWith('\\'))) {
    resolved = resolved.slice(0, -1);
  }
  return env.platform === 'win32' || env.platform === 'darwin' ? resolved.toLowerCase() : resolved;
}
