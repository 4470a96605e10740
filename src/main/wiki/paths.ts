import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { invalid } from '../../shared/errors';
import { ROOT_FILES, SECTIONS, type Section } from './layout';

export interface WikiPath {
  /** Normalised relative path with forward slashes, e.g. `topics/sqlite.md`. */
  rel: string;
  /** The section folder, or null for a root file. */
  section: Section | null;
  /** File name without `.md`. */
  stem: string;
}

// One segment: starts with a letter or digit (no hidden or temp files), then a small safe set.
// Anything else (spaces, Unicode look-alikes, shell or URL syntax) is rejected rather than guessed at.
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_PATH = 200;
// CON.md, nul.md, COM1.md ... open a device instead of a file on Windows.
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/** Rules on the raw string, in order; the first broken one is the message. */
const RAW_RULES: [broken: (raw: string) => boolean, message: string][] = [
  [(raw) => raw.trim().length === 0, 'must not be empty'],
  [(raw) => raw.length > MAX_PATH, `must be at most ${MAX_PATH} characters`],
  [(raw) => raw.includes('\0'), 'must not contain NUL bytes'],
  [(raw) => raw.includes('\\'), 'must use forward slashes; backslashes are not allowed'],
  [
    (raw) => raw.startsWith('/') || raw.startsWith('~') || /^[A-Za-z]:/.test(raw) || path.isAbsolute(raw),
    'must be relative to the wiki root, not absolute or home-relative',
  ],
  [(raw) => /%[0-9A-Fa-f]{2}/.test(raw), 'must not be percent-encoded; write the plain path'],
  // eslint-disable-next-line no-control-regex
  [(raw) => /[\u0000-\u001f\u007f]/.test(raw), 'must not contain control characters'],
  [
    (raw) => /[^\x20-\x7e]/.test(raw),
    'must be plain ASCII (letters, digits, ".", "_", "-"); other encodings are not accepted',
  ],
  [(raw) => raw.split('/').some((s) => s === '.' || s === '..'), 'must not contain "." or ".." segments'],
  [(raw) => raw.split('/').some((s) => s === ''), 'must not contain empty segments ("//" or a trailing "/")'],
  [(raw) => !raw.endsWith('.md') || raw.endsWith('/.md'), 'must be a Markdown file ending in ".md"'],
];

/** What is wrong with the path's segments (names, depth, device names), or null. */
function segmentProblem(segments: string[]): string | null {
  const bad = segments.find((s) => !SEGMENT.test(s));
  if (bad !== undefined) {
    return `segment "${bad}" must start with a letter or digit and use only letters, digits, ".", "_", "-"`;
  }
  if (segments.length > 2) return 'must be a root file or <section>/<name>.md; nested folders are not allowed';
  const device = segments.find((s) => WINDOWS_DEVICE.test(s));
  if (device !== undefined) return `segment "${device}" is a reserved device name on Windows`;
  return null;
}

/**
 * Checks a caller-supplied wiki path against the layout before any file is touched. Every rule
 * has its own message so a rejected path says exactly why. The raw string is inspected before
 * any normalisation, so `topics/../USER.md` is refused rather than quietly resolved.
 */
export function validateWikiPath(raw: unknown, field = 'path'): WikiPath {
  const fail = (msg: string) => invalid(field, msg);
  if (typeof raw !== 'string') throw fail('must be a string');
  const broken = RAW_RULES.find(([isBroken]) => isBroken(raw));
  if (broken) throw fail(broken[1]);
  const segments = raw.split('/');
  const problem = segmentProblem(segments);
  if (problem) throw fail(problem);
  const file = segments[segments.length - 1]!;
  const stem = file.slice(0, -3);
  if (segments.length === 1) {
    if (!(ROOT_FILES as readonly string[]).includes(file)) {
      throw fail(`a root file must be one of ${ROOT_FILES.join(', ')}; pages go in ${SECTIONS.join('/, ')}/`);
    }
    return { rel: file, section: null, stem };
  }
  const dir = segments[0]!;
  if (!(SECTIONS as readonly string[]).includes(dir)) throw fail(`folder must be one of ${SECTIONS.join(', ')}`);
  return { rel: `${dir}/${file}`, section: dir as Section, stem };
}

const inside = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

/** The real path of the nearest existing ancestor (or the path itself), for symlink checks. */
function realOfNearestExisting(p: string): string {
  let current = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(realpathSync(current), ...rest.reverse());
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
      const parent = path.dirname(current);
      if (parent === current) return p;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * The absolute file for a validated path, after checking that neither the file nor its folder is
 * a symlink leading out of the wiki (a dangling link is judged by where it points).
 */
export function resolveWikiFile(root: string, wp: WikiPath, field = 'path'): string {
  const realRoot = realOfNearestExisting(root);
  const abs = path.join(root, ...wp.rel.split('/'));
  const realDir = realOfNearestExisting(path.dirname(abs));
  if (!inside(realRoot, realDir)) throw invalid(field, 'resolves outside the wiki (a folder is a symlink out of it)');
  let target = path.join(realDir, path.basename(abs));
  // Follow the link chain by hand: realpath gives up on a dangling link, which a write would follow.
  for (let hops = 0; hops < 40; hops++) {
    let isLink = false;
    try {
      isLink = lstatSync(target).isSymbolicLink();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (!isLink) break;
    target = realOfNearestExisting(path.resolve(path.dirname(target), readlinkSync(target)));
  }
  if (!inside(realRoot, target)) throw invalid(field, 'resolves outside the wiki (it is a symlink out of it)');
  return abs;
}
