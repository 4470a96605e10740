import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ScopeRef } from '../../shared/schemas';
import { pageVisibleTo } from '../wiki/page-scopes';
import { parsePage } from '../wiki/front-matter';
import { rawTokens, normalizeToken, type QueryTerms } from '../text/tokenize';
import { lexicalScore, termWeights, textBag, bagMatch, type LexicalMatch, type TextBag } from './recall/rank';
import { excerpt, type RankedHit } from './search-hit';

/** memory_search over the legacy Markdown wiki pages, read straight from <home>/wiki. */

const CURATED_SECTIONS: Record<string, string> = {
  topics: 'topic',
  entities: 'entity',
  sources: 'source',
  comparisons: 'comparison',
};
const RAW_SECTIONS: Record<string, string> = { notes: 'note', imports: 'import' };
const WIKI_FILE_MAX_BYTES = 1024 * 1024;

interface WikiFile {
  rel: string;
  ref: string;
  /** The folder that lists it (the wiki itself for USER.md). */
  folder: string;
}

/**
 * What the wiki held at its last read, per folder and per page, so a search reads only what
 * changed. Every search looks at each folder (stat): its listing is kept while its mtime stands,
 * and adding, removing or renaming a page moves it, as every atomic write does (the program's own
 * writes, most editors' saves). A page's text is kept while its inode, size and change times
 * stand; it is looked at again when its folder moved, and otherwise at most every
 * PAGE_RECHECK_MS: a stat per page per search was most of a search over a thousand pages, and an
 * edit written in place (no rename) by another program is still seen within that time.
 */
interface CachedPage {
  signature: string;
  raw: string;
  page: ReturnType<typeof parsePage>;
  /** The page's words (its path and text), counted on first use: a search looks up its terms. */
  bag?: TextBag;
  /** The folded words of its path, description and tags (the fields a hit is boosted for). */
  fields?: { path: Set<string>; description: Set<string>; tags: Set<string> };
  /** When the file was last looked at, and its folder's mtime then. */
  checkedAt: number;
  folderMtimeMs: number | undefined;
}
export const PAGE_RECHECK_MS = 2_000;
const folderCache = new Map<string, { mtimeMs: number; names: string[] }>();
const pageCache = new Map<string, CachedPage>();

function folderNames(dir: string): string[] | null {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory()) {
    folderCache.delete(dir);
    return null;
  }
  const cached = folderCache.get(dir);
  if (cached && cached.mtimeMs === st.mtimeMs) return cached.names;
  try {
    const names = readdirSync(dir).sort();
    folderCache.set(dir, { mtimeMs: st.mtimeMs, names });
    return names;
  } catch {
    folderCache.delete(dir);
    return null;
  }
}

function wikiFiles(wikiDir: string): WikiFile[] {
  folderNames(wikiDir); // USER.md's folder: its mtime moves when USER.md is replaced
  const files: WikiFile[] = [{ rel: 'USER.md', ref: 'memory:user', folder: wikiDir }];
  for (const [dir, prefix] of Object.entries({ ...CURATED_SECTIONS, ...RAW_SECTIONS })) {
    const folder = path.join(wikiDir, dir);
    const names = folderNames(folder);
    for (const name of names ?? []) {
      if (!name.endsWith('.md') || name.startsWith('.')) continue;
      const stem = name.slice(0, -3);
      files.push({ rel: `${dir}/${name}`, ref: prefix === 'note' ? `note:${name}` : `${prefix}:${stem}`, folder });
    }
  }
  // Pages that are gone leave the cache.
  if (pageCache.size > files.length) {
    const listed = new Set(files.map((f) => path.join(wikiDir, f.rel)));
    for (const file of pageCache.keys()) if (!listed.has(file)) pageCache.delete(file);
  }
  return files;
}

/** A page's text and front matter, read again only when the file changed; null when unreadable. */
function readPage(wikiDir: string, file: WikiFile, now: number): CachedPage | null {
  const absolute = path.join(wikiDir, file.rel);
  const folderMtimeMs = folderCache.get(file.folder)?.mtimeMs;
  const cached = pageCache.get(absolute);
  if (cached && folderMtimeMs !== undefined && cached.folderMtimeMs === folderMtimeMs) {
    if (now >= cached.checkedAt && now - cached.checkedAt < PAGE_RECHECK_MS) return cached;
  }
  try {
    const st = statSync(absolute);
    if (!st.isFile() || st.size > WIKI_FILE_MAX_BYTES) return null;
    const signature = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    if (cached?.signature === signature) return Object.assign(cached, { checkedAt: now, folderMtimeMs });
    const raw = readFileSync(absolute, 'utf8');
    const fresh = { signature, raw, page: parsePage(raw), checkedAt: now, folderMtimeMs };
    pageCache.set(absolute, fresh);
    return fresh;
  } catch {
    pageCache.delete(absolute);
    return null;
  }
}

const tokenSet = (text: string) => new Set(rawTokens(text).map(normalizeToken));
const overlap = (terms: readonly string[], set: Set<string>) => terms.filter((t) => set.has(t)).length;

interface WikiCandidate {
  file: WikiFile;
  read: CachedPage;
  match: LexicalMatch;
}

const fieldsOf = (rel: string, page: CachedPage['page']): NonNullable<CachedPage['fields']> => ({
  path: tokenSet(rel),
  description: tokenSet(page.meta.description ?? ''),
  tags: new Set(page.meta.tags.flatMap((t) => rawTokens(t).map(normalizeToken))),
});

/**
 * Wiki pages, ranked by BM25 over the visible pages (path and text as one field) with the
 * original's field boosts for words in the path, description and tags. Weak evidence abstains:
 * a page needs at least half the query's content words, and two of them for longer queries.
 */
export function wikiHits(
  wikiDir: string,
  terms: QueryTerms,
  visible: readonly ScopeRef[],
  now = Date.now(),
): RankedHit[] {
  const query = terms.meaningful;
  if (query.length === 0) return [];
  const needed = query.length <= 2 ? 1 : 2;
  const pages: WikiCandidate[] = [];
  for (const file of wikiFiles(wikiDir)) {
    const read = readPage(wikiDir, file, now);
    if (read === null || read.raw.trim() === '') continue;
    const { raw, page } = read;
    if (!pageVisibleTo(page.meta.scopes, visible)) continue;
    read.bag ??= textBag(`${file.rel}\n${raw}`);
    pages.push({ file, read, match: bagMatch(read.bag, query) });
  }
  const documentFrequency = new Map(query.map((q) => [q, pages.filter((p) => p.match.counts.get(q)).length]));
  const averageLength = pages.reduce((n, p) => n + p.match.length, 0) / Math.max(1, pages.length);
  const weights = termWeights(documentFrequency, pages.length, averageLength);
  const hits: RankedHit[] = [];
  for (const { file, read, match: m } of pages) {
    if (m.overlap <= 0 || m.matched.length < needed || m.coverage < 0.5) continue;
    const { page } = read;
    const fields = (read.fields ??= fieldsOf(file.rel, page));
    const rerank =
      1 +
      0.12 * overlap(query, fields.path) +
      0.15 * overlap(query, fields.description) +
      0.2 * overlap(query, fields.tags) +
      0.5 * m.coverage;
    const score = lexicalScore(m, weights) * rerank;
    hits.push({
      score,
      ref: file.ref,
      build: () => ({
        source: 'wiki',
        ref: file.ref,
        title: page.meta.description ?? file.rel,
        score,
        citation: { path: file.rel },
        snippet: excerpt(page.body, query),
      }),
    });
  }
  return hits;
}
