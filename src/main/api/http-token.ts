import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The per-home HTTP token: 32 random bytes, created once with mode 0600 so only this user's
 * processes can read it. A file another process created first wins (EEXIST), so two servers on
 * one home agree. A malformed file is replaced rather than trusted.
 */
export function ensureHttpToken(file: string): string {
  const existing = readToken(file);
  if (existing) return existing;
  const token = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, token + '\n', { mode: 0o600, flag: 'wx' });
    return token;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const raced = readToken(file);
  if (raced) return raced;
  writeFileSync(file, token + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

function readToken(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (!TOKEN_PATTERN.test(text)) return null;
  // Someone loosened the permissions: tighten them again rather than serve a readable secret.
  if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return text;
}

/** Constant-time comparison of an `Authorization` header against the token. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
