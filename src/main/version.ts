import { readFileSync } from 'node:fs';
import path from 'node:path';

const PACKAGE_NAME = 'evoflux-memory';
const cache = new Map<string, string>();

/**
 * The version in this program's package.json, found by walking up from `from` (this file's
 * folder by default): the same answer from `src/main` under tsx and from a compiled bundle in
 * `out/`, whatever the working directory. "unknown" when there is none (a broken install).
 */
export function packageVersion(from: string = __dirname): string {
  const cached = cache.get(from);
  if (cached) return cached;
  let dir = path.resolve(from);
  for (;;) {
    const version = versionIn(path.join(dir, 'package.json'));
    if (version) {
      cache.set(from, version);
      return version;
    }
    const parent = path.dirname(dir);
    // Only a broken install has no package.json above its code; say so rather than crash.
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}

function versionIn(file: string): string | null {
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
    return pkg.name === PACKAGE_NAME && typeof pkg.version === 'string' ? pkg.version : null;
  } catch {
    return null;
  }
}
