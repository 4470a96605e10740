import {
  chmodSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { CommandError } from '../shared/errors';

/**
 * The data home holds a person's conversations, memory and an API token: every folder the
 * program creates in it is 0700 and every file 0600, whatever the process umask, and nothing
 * is ever written through a symbolic link planted in it. Modes are a no-op on Windows, whose
 * per-user profile folders are private already.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

const POSIX = process.platform !== 'win32';
// O_NOFOLLOW makes open() fail with ELOOP on a symlink instead of following it (0 where absent).
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

const lstatOrNull = (p: string): Stats | null => {
  try {
    return lstatSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
};

export const isSymlink = (p: string): boolean => lstatOrNull(p)?.isSymbolicLink() ?? false;

/** The error for a write that would go through a link; names the file so a person can fix it. */
export const symlinkRefused = (file: string, field?: string): CommandError =>
  new CommandError(
    'forbidden',
    `${field ? `${field}: ` : ''}${file} is a symbolic link; EvoFlux never writes through one (replace it with a real file)`,
    field,
  );

export function refuseSymlink(file: string, field?: string): void {
  if (isSymlink(file)) throw symlinkRefused(file, field);
}

const loose = (st: Stats) => POSIX && (st.mode & 0o077) !== 0;

/** chmod to `mode` when group or others have any access; never through a link. True if changed. */
function tighten(p: string, mode: number): boolean {
  const st = lstatOrNull(p);
  if (!st || st.isSymbolicLink() || !loose(st)) return false;
  chmodSync(p, mode);
  return true;
}

/**
 * Creates `dir` (and missing parents) as 0700 and tightens it if it exists with a looser mode.
 * A folder that is a symlink is left as it is (a person may keep the home or the wiki on another
 * disk); returns whether the folder was open to others before.
 */
export function ensurePrivateDir(dir: string): boolean {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  return tighten(dir, PRIVATE_DIR_MODE);
}

/** Creates `dir` and missing parents as 0700; an existing folder (one a person chose) keeps its mode. */
export function createPrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Tightens an existing file to 0600 (no-op when missing, private already, or a symlink). */
export function tightenFile(file: string): void {
  tighten(file, PRIVATE_FILE_MODE);
}

/**
 * Creates an empty 0600 file unless one exists; refuses a symlink in its place. Used for
 * memory.db before SQLite opens it, because SQLite gives the -wal and -shm files the database
 * file's mode.
 */
export function ensurePrivateFile(file: string): void {
  const st = lstatOrNull(file);
  if (st?.isSymbolicLink()) throw symlinkRefused(file);
  if (st) return tightenFile(file);
  try {
    closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, PRIVATE_FILE_MODE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

/**
 * Replaces `file` with `content` without ever following a link: a 0600 temp file is created
 * exclusively (O_EXCL | O_NOFOLLOW) and renamed over the target, and rename() replaces a link
 * itself rather than the file it names. For small files outside the wiki (lock owner records).
 */
export function replacePrivateFileSync(file: string, content: string): void {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, PRIVATE_FILE_MODE);
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
}

/** Every folder and file below `dir` tightened to 0700 / 0600; symlinks are skipped, not followed. */
function tightenTree(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const p = path.join(dir, name);
    const st = lstatOrNull(p);
    if (!st || st.isSymbolicLink()) continue;
    if (st.isDirectory()) {
      tighten(p, PRIVATE_DIR_MODE);
      tightenTree(p);
    } else tighten(p, PRIVATE_FILE_MODE);
  }
}

/**
 * Makes an existing home private again: the home folder itself, and, when it was open to others
 * (so anything inside may have been read or planted), every folder and file below it.
 */
export function repairHome(root: string, known: { dirs: string[]; files: string[] }): void {
  if (!POSIX) return void mkdirSync(root, { recursive: true });
  const wasOpen = ensurePrivateDir(root);
  for (const d of known.dirs) tighten(d, PRIVATE_DIR_MODE);
  for (const f of known.files) tightenFile(f);
  if (wasOpen) tightenTree(root);
}
