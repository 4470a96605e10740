import { randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, fchmodSync, fstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import { PRIVATE_FILE_MODE, replacePrivateFileSync, symlinkRefused } from '../private-fs';

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * The per-home HTTP token: 32 random bytes, created once with mode 0600 so only this user's
 * processes can read it. A file another process created first wins (EEXIST), so two servers on
 * one home agree. A malformed file is replaced (never trusted), by a rename that cannot write
 * through a link. A symlink in its place is refused outright: it is never read, overwritten or
 * chmodded, because its target could be any file of this user.
 */
export function ensureHttpToken(file: string): string {
  const existing = readToken(file);
  if (existing) return existing;
  const token = randomBytes(32).toString('base64url');
  try {
    const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, PRIVATE_FILE_MODE);
    try {
      writeSync(fd, token + '\n');
    } finally {
      closeSync(fd);
    }
    return token;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const raced = readToken(file);
  if (raced) return raced;
  replacePrivateFileSync(file, token + '\n');
  return token;
}

function readToken(file: string): string | null {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted in its place must not hang the server (no effect on a file).
    fd = openSync(file, constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    // ELOOP: the last component is a symlink (EMLINK on some BSDs).
    if (code === 'ELOOP' || code === 'EMLINK') throw symlinkRefused(file);
    throw e;
  }
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${file} is not a regular file; remove it and start again`);
    const text = readFileSync(fd, 'utf8').trim();
    if (!TOKEN_PATTERN.test(text)) return null;
    // Someone loosened the permissions: tighten them again rather than serve a readable secret.
    if (process.platform !== 'win32' && (fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, PRIVATE_FILE_MODE);
    return text;
  } finally {
    closeSync(fd);
  }
}

/** Constant-time comparison of an `Authorization` header against the token. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
