import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { ensurePrivateDir, isSymlink, symlinkRefused } from '../private-fs';
import path from 'node:path';
import type { Clock } from '../../shared/clock';
import { CommandError, invalid, notFound } from '../../shared/errors';
import { fsyncDir, removeLeftoverTempFiles, writeFileAtomically } from './atomic';
import { FileLock } from './file-lock';
import { parsePage, type PageMeta } from './front-matter';
import { APPEND_ONLY, PROTECTED_FROM_DELETE, READ_ONLY_SECTIONS, SECTIONS, type Section } from './layout';
import { Mutex } from './mutex';
import { extractWikiLinks } from './links';
import { resolveWikiFile, validateWikiPath, type WikiPath } from './paths';

export interface WikiPage {
  path: string;
  content: string;
  body: string;
  meta: PageMeta;
  /** The raw front matter mapping, or null. */
  data: Record<string, unknown> | null;
  mtimeMs: number;
  /** The content's version (see pageVersion): a write can require it to be unchanged. */
  version: string;
}

/** A page's version: a hash of its bytes ('absent' when there is no file). Same text, same version. */
export const pageVersion = (content: string | null): string =>
  content === null ? 'absent' : 'sha256:' + createHash('sha256').update(content, 'utf8').digest('hex').slice(0, 32);

/** The page's title: the first `# ` heading of its body, else null. */
export function pageTitle(body: string): string | null {
  const m = /^#[ \t]+(.+?)[ \t#]*$/m.exec(body);
  return m ? m[1]!.trim().slice(0, 200) : null;
}

/** What the tree, the index, lint and Dream need from a page, cached by mtime and size. */
export interface PageSummary {
  path: string;
  meta: PageMeta;
  data: Record<string, unknown> | null;
  links: string[];
  title: string | null;
}

export interface WriteOptions {
  /** Internal callers (the note append helper) may write under notes/; commands and models may not. */
  allowReadOnly?: boolean;
  field?: string;
  /**
   * The version the writer read (wiki.read's version, 'absent' for a new page): when the file
   * changed since, the write is refused with a conflict instead of overwriting someone's edit.
   */
  expectedVersion?: string;
}

const PAGE_FILE = /^[A-Za-z0-9][A-Za-z0-9._-]*\.md$/;
const LOCK_WAIT_MS = 30_000;

const utcStamp = (ms: number) => {
  const iso = new Date(ms).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
};

/**
 * Every file operation on the wiki: validated paths, atomic replacement, and one write lock
 * (in-process mutex + cross-process lock file) around every write and append, so the app and a
 * CLI writing at the same moment never lose or interleave a line. The lock is re-entrant within
 * one async call chain, so Dream can hold it across all the pages of one item.
 */
export class WikiService {
  private readonly mutex = new Mutex();
  private readonly holding = new AsyncLocalStorage<boolean>();
  private readonly lock: FileLock;
  private readonly derivedValues = new Map<string, { mtimeMs: number; size: number; value: unknown }>();

  constructor(
    readonly root: string,
    locksDir: string,
    private readonly clock: Clock,
  ) {
    this.lock = new FileLock(path.join(locksDir, 'wiki-write'));
  }

  /** Runs fn holding the write lock (immediately, if this call chain already holds it). */
  async withWriteLock<T>(fn: () => Promise<T>): Promise<T> {
    if (this.holding.getStore()) return fn();
    return this.mutex.run(async () => {
      const held = await this.lock.acquire('wiki write', LOCK_WAIT_MS);
      if (!held) throw new CommandError('busy', 'the wiki is locked by another process; try again');
      try {
        return await this.holding.run(true, fn);
      } finally {
        await held.release();
      }
    });
  }

  /** Validates a caller's path and resolves it inside the wiki. */
  locate(rawPath: unknown, field = 'path'): { wp: WikiPath; file: string } {
    const wp = validateWikiPath(rawPath, field);
    return { wp, file: resolveWikiFile(this.root, wp, field) };
  }

  /**
   * Writes never go through a symlink: not through a section folder that is one (`topics` linked
   * to `notes` would let a page write replace a note), and, unless `linkItself` (a delete removes
   * the link, not what it names), not through a page that is one (`topics/x.md` linked to LOG.md
   * or USER.md would bypass their rules). Reads may still follow links that stay in the wiki.
   */
  private refuseLinks(wp: WikiPath, file: string, field: string, linkItself = false): void {
    if (wp.section && isSymlink(path.join(this.root, wp.section))) throw symlinkRefused(`${wp.section}/`, field);
    if (!linkItself && isSymlink(file)) throw symlinkRefused(wp.rel, field);
  }

  /** Whether a write to this page would be accepted by the link rules above (Dream skips others). */
  writable(rawPath: string): boolean {
    try {
      const { wp, file } = this.locate(rawPath);
      this.refuseLinks(wp, file, 'path');
      return true;
    } catch {
      return false;
    }
  }

  exists(rawPath: string): boolean {
    try {
      return statSync(this.locate(rawPath).file).isFile();
    } catch (e) {
      if (e instanceof CommandError) throw e;
      return false;
    }
  }

  read(rawPath: unknown, field = 'path'): WikiPage {
    const { wp, file } = this.locate(rawPath, field);
    let content: string;
    let mtimeMs: number;
    try {
      const st = statSync(file);
      if (!st.isFile()) throw notFound('wiki page', wp.rel, field);
      mtimeMs = st.mtimeMs;
      content = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw notFound('wiki page', wp.rel, field);
      throw e;
    }
    const parsed = parsePage(content);
    return {
      path: wp.rel,
      content,
      body: parsed.body,
      meta: parsed.meta,
      data: parsed.data,
      mtimeMs,
      version: pageVersion(content),
    };
  }

  /**
   * A page's front matter and links without re-reading it when it has not changed (mtime and
   * size). Null when it does not exist; a symlink out of the wiki throws like read() does.
   */
  summary(rawPath: string): PageSummary | null {
    return this.derived(rawPath, 'summary', (content, rel) => {
      const parsed = parsePage(content);
      return {
        path: rel,
        meta: parsed.meta,
        data: parsed.data,
        links: extractWikiLinks(content),
        title: pageTitle(parsed.body),
      };
    });
  }

  /**
   * `derive` of a page's text, kept until the page changes (mtime and size) under `kind` (what is
   * derived; two kinds never share an entry): for passes over the whole wiki, such as lint's after
   * every Dream run, that would otherwise read and scan every page each time. Null when the page
   * does not exist; a symlink out of the wiki throws like read() does.
   */
  derived<T>(rawPath: string, kind: string, derive: (content: string, rel: string) => T): T | null {
    const page = this.statPage(rawPath);
    if (!page) return null;
    const { wp, file, st } = page;
    const key = `${kind}\0${wp.rel}`;
    const hit = this.derivedValues.get(key);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.value as T;
    let content: string;
    try {
      content = readFileSync(file, 'utf8');
    } catch {
      return null;
    }
    const value = derive(content, wp.rel);
    this.derivedValues.set(key, { mtimeMs: st.mtimeMs, size: st.size, value });
    return value;
  }

  /** The page's file and its stat, following a symlink only inside the wiki; null when it is not a file. */
  private statPage(rawPath: string) {
    const wp = validateWikiPath(rawPath);
    const file = path.join(this.root, ...wp.rel.split('/'));
    let st;
    try {
      st = lstatSync(file);
      if (st.isSymbolicLink()) {
        resolveWikiFile(this.root, wp);
        st = statSync(file);
      }
    } catch (e) {
      if (e instanceof CommandError) throw e;
      return null;
    }
    return st.isFile() ? { wp, file, st } : null;
  }

  /** A page's text as it is on disk, unparsed; null when it does not exist. */
  readText(rawPath: string): string | null {
    const { file } = this.locate(rawPath);
    try {
      return statSync(file).isFile() ? readFileSync(file, 'utf8') : null;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  /** The page, or null when it does not exist. */
  tryRead(rawPath: string): WikiPage | null {
    try {
      return this.read(rawPath);
    } catch (e) {
      if (e instanceof CommandError && e.code === 'not_found') return null;
      throw e;
    }
  }

  /** Creates or replaces a page atomically. notes/ and LOG.md are refused: they only grow by appends. */
  async write(
    rawPath: unknown,
    content: string,
    options: WriteOptions = {},
  ): Promise<{ path: string; created: boolean; version: string }> {
    const field = options.field ?? 'path';
    const { wp, file } = this.locate(rawPath, field);
    if (APPEND_ONLY.includes(wp.rel))
      throw new CommandError('forbidden', `${field}: ${wp.rel} is append-only; it cannot be overwritten`, field);
    if (!options.allowReadOnly && wp.section && READ_ONLY_SECTIONS.includes(wp.section)) {
      throw new CommandError(
        'forbidden',
        `${field}: ${wp.section}/ is read-only Dream input; append a note instead`,
        field,
      );
    }
    if (typeof content !== 'string') throw invalid('content', 'must be a string');
    if (content.includes('\0')) throw invalid('content', 'must not contain NUL bytes');
    return this.withWriteLock(async () => {
      if (wp.section) ensurePrivateDir(path.dirname(file));
      // Re-check after taking the lock: a folder could have been swapped for a symlink meanwhile.
      resolveWikiFile(this.root, wp, field);
      this.refuseLinks(wp, file, field);
      let current: string | null = null;
      try {
        current = readFileSync(file, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      if (options.expectedVersion !== undefined && options.expectedVersion !== pageVersion(current)) {
        throw new CommandError(
          'conflict',
          `expectedVersion: ${wp.rel} changed on disk since it was read; reload it and apply your edit again`,
          'expectedVersion',
        );
      }
      await writeFileAtomically(file, content);
      return { path: wp.rel, created: current === null, version: pageVersion(content) };
    });
  }

  /**
   * Writes several pages under one lock hold: each replaced atomically, a few at a time (the
   * fsyncs overlap), and each folder fsynced once at the end instead of once per page.
   */
  async writeMany(pages: { path: string; content: string }[], concurrency = 4): Promise<string[]> {
    const targets = pages.map((p, i) => {
      const { wp, file } = this.locate(p.path, `pages.${i}.path`);
      if (APPEND_ONLY.includes(wp.rel) || (wp.section && READ_ONLY_SECTIONS.includes(wp.section))) {
        throw new CommandError(
          'forbidden',
          `pages.${i}.path: ${wp.rel} cannot be written as a page`,
          `pages.${i}.path`,
        );
      }
      return { wp, file, content: p.content };
    });
    return this.withWriteLock(async () => {
      const dirs = new Set<string>();
      let next = 0;
      const worker = async () => {
        while (next < targets.length) {
          const t = targets[next++]!;
          if (t.wp.section) ensurePrivateDir(path.dirname(t.file));
          resolveWikiFile(this.root, t.wp);
          this.refuseLinks(t.wp, t.file, 'path');
          await writeFileAtomically(t.file, t.content, { syncDir: false });
          dirs.add(path.dirname(t.file));
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, targets.length)) }, worker));
      for (const d of dirs) fsyncDir(d);
      return targets.map((t) => t.wp.rel);
    });
  }

  /**
   * Deletes a page (a symlink: the link itself). USER.md, INDEX.md and LOG.md are protected; a
   * daily note only goes when `noteConsumed` confirms, under the lock, that Dream has consumed
   * its current content (notes are append-only Dream input until then).
   */
  async delete(
    rawPath: unknown,
    field = 'path',
    options: { noteConsumed?: (name: string, content: string) => boolean } = {},
  ): Promise<{ path: string }> {
    const { wp, file } = this.locate(rawPath, field);
    if (PROTECTED_FROM_DELETE.includes(wp.rel)) {
      throw new CommandError(
        'forbidden',
        `${field}: Refusing to delete protected wiki file ${wp.rel}; overwrite it instead`,
        field,
      );
    }
    return this.withWriteLock(async () => {
      resolveWikiFile(this.root, wp, field);
      this.refuseLinks(wp, file, field, true);
      try {
        if (!statSync(file).isFile()) throw notFound('wiki page', wp.rel, field);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw notFound('wiki page', wp.rel, field);
        throw e;
      }
      if (wp.section && READ_ONLY_SECTIONS.includes(wp.section)) {
        const content = readFileSync(file, 'utf8');
        if (!options.noteConsumed?.(`${wp.stem}.md`, content)) {
          throw new CommandError(
            'forbidden',
            `${field}: ${wp.rel} is not yet consumed by Dream; notes are append-only until Dream has read them (run \`dream run\`, then delete it)`,
            field,
          );
        }
      }
      rmSync(file);
      return { path: wp.rel };
    });
  }

  /** Read-modify-replace under the lock: the primitive both append helpers use. */
  private async appendTo(rel: string, make: (current: string | null) => string): Promise<void> {
    const { wp, file } = this.locate(rel);
    await this.withWriteLock(async () => {
      ensurePrivateDir(path.dirname(file));
      this.refuseLinks(wp, file, 'path');
      let current: string | null = null;
      try {
        current = readFileSync(file, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      await writeFileAtomically(file, make(current));
    });
  }

  /** Adds a timestamped entry to today's (UTC) daily note. */
  async appendNote(content: string, at = this.clock.now()): Promise<{ path: string }> {
    const text = content.trim();
    if (!text) throw invalid('content', 'must not be empty');
    if (text.includes('\0')) throw invalid('content', 'must not contain NUL bytes');
    const { date, time } = utcStamp(at);
    const rel = `notes/${date}.md`;
    const entry = `## ${time} UTC\n\n${text}\n`;
    await this.appendTo(rel, (current) =>
      current === null || current === '' ? entry : `${current.replace(/\n*$/, '\n')}\n${entry}`,
    );
    return { path: rel };
  }

  /** Appends `## [YYYY-MM-DD HH:MM UTC] first line` (greppable with `grep '^## \['`) and any detail lines. */
  async appendLog(entry: string, at = this.clock.now()): Promise<void> {
    const [first = '', ...rest] = entry.trim().split('\n');
    const { date, time } = utcStamp(at);
    const detail = rest.join('\n').trim();
    const block = `## [${date} ${time} UTC] ${first.trim()}\n${detail ? `\n${detail}\n` : ''}\n`;
    await this.appendTo('LOG.md', (current) => {
      const head =
        current === null || current.trim() === ''
          ? "# Wiki Log\n\nAppend-only record of Dream runs and lint passes, newest last. Find entries with `grep '^## \\[' LOG.md`.\n\n"
          : current.replace(/\n*$/, '\n\n');
      return head + block;
    });
  }

  /** The page files of one section folder (no recursion), sorted by name. */
  listSection(section: Section): string[] {
    const dir = path.join(this.root, section);
    try {
      resolveWikiFile(this.root, { rel: `${section}/x.md`, section, stem: 'x' });
    } catch {
      return [];
    }
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((d) => (d.isFile() || d.isSymbolicLink()) && PAGE_FILE.test(d.name))
        .map((d) => d.name);
    } catch {
      return [];
    }
    return names.sort();
  }

  /** Removes temp files left by a killed writer; holds the lock so no live writer is affected. */
  async cleanLeftovers(): Promise<string[]> {
    return this.withWriteLock(async () =>
      removeLeftoverTempFiles([this.root, ...SECTIONS.map((s) => path.join(this.root, s))]),
    );
  }
}
