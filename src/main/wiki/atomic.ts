import { closeSync, fsyncSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../lazy-deps';
import { PRIVATE_FILE_MODE, refuseSymlink } from '../private-fs';

/**
 * Replaces a file so a reader (or a crash) only ever sees the old or the new content: a sibling
 * temp file is written and fsynced, made 0600 (only this user can read it), and renamed over
 * the target (write-file-atomic does all of that and removes the temp file on failure). The
 * folder is fsynced afterwards so the rename itself survives a power cut where the platform
 * allows it. A target that is a symlink is refused: write-file-atomic would follow it.
 */
export async function writeFileAtomically(
  file: string,
  content: string,
  options: { syncDir?: boolean; field?: string } = {},
): Promise<void> {
  refuseSymlink(file, options.field);
  await writeFileAtomic()(file, content, { encoding: 'utf8', fsync: true, mode: PRIVATE_FILE_MODE });
  if (options.syncDir !== false) fsyncDir(path.dirname(file));
}

export function writeFileAtomicallySync(file: string, content: string): void {
  refuseSymlink(file);
  writeFileAtomic().sync(file, content, { encoding: 'utf8', fsync: true, mode: PRIVATE_FILE_MODE });
  fsyncDir(path.dirname(file));
}

export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Windows cannot open a folder for fsync; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

// write-file-atomic names its temp files `<target>.<32-bit number>`; seeding uses `.<name>.seed-<pid>`.
const TEMP_FILE = /\.md\.\d+$|^\..+\.md\.seed-\d+$/;

/**
 * Removes temp files a killed writer left behind. Only safe while holding the wiki write lock,
 * because then no other writer can have a temp file in flight.
 */
export function removeLeftoverTempFiles(dirs: string[], olderThanMs = 0, now = Date.now()): string[] {
  const removed: string[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!TEMP_FILE.test(name)) continue;
      const file = path.join(dir, name);
      try {
        if (now - statSync(file).mtimeMs < olderThanMs) continue;
        rmSync(file, { force: true });
        removed.push(file);
      } catch {
        // Gone already.
      }
    }
  }
  return removed;
}
