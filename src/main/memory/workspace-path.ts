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
  const value = expandHome(raw.trim(), env.home, p);
  if (!p.isAbsolute(value)) throw invalid('workspace', `must be an absolute path (got "${raw}")`);
  let resolved = p.resolve(value);
  if (env.platform === process.platform) resolved = realpathNonStrict(resolved, p);
  resolved = withoutTrailingSeparators(resolved, p.parse(resolved).root);
  return env.platform === 'win32' || env.platform === 'darwin' ? resolved.toLowerCase() : resolved;
}

function expandHome(value: string, home: string, p: typeof path.posix): string {
  const tilde = value === '~' || value.startsWith('~/') || value.startsWith('~\\');
  return tilde ? p.join(home, value.slice(1)) : value;
}

function withoutTrailingSeparators(resolved: string, root: string): string {
  let out = resolved;
  while (out.length > root.length && (out.endsWith('/') || out.endsWith('\\'))) out = out.slice(0, -1);
  return out;
}
