import { pageVisibleTo } from '../wiki/page-scopes';
import type { ScopeRef } from '../../shared/schemas';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db';
import { resolveScopes, type SessionScopes } from './scope';
import { searchFacts, recallQueryText } from './recall/search-facts';
import { queryTerms, rawTokens, normalizeToken, type QueryTerms } from '../text/tokenize';
import { lexicalMatch, lexicalScore, termWeights, type LexicalMatch } from './recall/rank';
import { rankDialogue } from './dialogue-search';
import { parsePage } from '../wiki/front-matter';
import { redactSecrets } from './secrets';
import { messageRef } from './citations';
import type { Scope } from '../../shared/domain';

/**
 * memory_search: the explicit, wider lookup. Scoped facts (explicit mode: no abstain rule, no
 * coverage threshold), the legacy Markdown wiki pages, and scoped dialogue evidence, merged and
 * sorted by (-score, ref). Runs on the read lane (a worker thread with a read-only connection).
 */
export const SEARCH_SOURCES = ['facts', 'wiki', 'dialogue'] as const;
export type SearchSource = (typeof SEARCH_SOURCES)[number];

export interface SearchHit {
  source: 'fact' | 'wiki' | 'dialogue';
  ref: string;
  title: string;
  snippet: string;
  score: number;
  citation: { sessionId?: string; messageId?: string; ref?: string; scope?: Scope; path?: string };
  /** Dialogue hits: when the message was written (ISO-8601, UTC), for "when" questions. */
  date?: string;
}

export interface SearchRequest {
  sessionId: string;
  query: string;
  limit: number;
  sources: readonly SearchSource[];
}

/**
 * A hit as ranked: its score and ref (the sort keys) and how to build the whole hit. Every source
 * ranks all its candidates, but only the few returned are built: a dialogue hit's citation ref
 * is an HMAC and a snippet redacts secrets from the whole text.
 */
interface RankedHit {
  score: number;
  ref: string;
  build(): SearchHit;
}

export function memorySearch(db: Db, wikiDir: string, req: SearchRequest): SearchHit[] {
  const scopes = resolveScopes(db, req.sessionId);
  const text = recallQueryText(req.query);
  const terms = queryTerms(text);
  const ranked: RankedHit[] = [];
  if (req.sources.includes('facts')) ranked.push(...factHits(db, scopes, text, req.limit));
  if (req.sources.includes('wiki')) ranked.push(...wikiHits(wikiDir, terms, scopes.visible));
  if (req.sources.includes('dialogue')) ranked.push(...dialogueHits(db, scopes, terms));
  ranked.sort((a, b) => b.score - a.score || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
  return ranked.slice(0, req.limit).map((r) => ({ ...r.build(), score: Math.round(r.score * 1e6) / 1e6 }));
}

function factHits(db: Db, scopes: SessionScopes, text: string, limit: number): RankedHit[] {
  return searchFacts(db, scopes, text, { mode: 'explicit', limit }).facts.map((f) => {
    const hit: SearchHit = {
      source: 'fact',
      ref: `fact:${f.id}`,
      title: `${f.kind} (${f.scope})`,
      snippet: f.text,
      score: f.score,
      citation: {
        ...(f.citation.sessionId ? { sessionId: f.citation.sessionId } : {}),
        ...(f.citation.messageId ? { messageId: f.citation.messageId } : {}),
        ...(f.citation.ref ? { ref: f.citation.ref } : {}),
        scope: f.scope,
      },
    };
    return { score: hit.score, ref: hit.ref, build: () => hit };
  });
}

// ---------------------------------------------------------------------------------------------
// Excerpts

const EXCERPT_CHARS = 500;
const EXCERPT_LEAD = 120;

/**
 * The whole text when short; else a 500-character window from 120 before the first query hit.
 * Secrets are replaced by `[redacted <kind>]` before the window is cut, so no part of one shows.
 */
export function excerpt(text: string, query: readonly string[]): string {
  const flat = redactSecrets(text.replace(/\s+/gu, ' ').trim()).text;
  if (flat.length <= EXCERPT_CHARS) return flat;
  const lower = flat.toLowerCase();
  let first = -1;
  for (const q of query) {
    const at = lower.indexOf(q);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  const start = Math.max(0, first < 0 ? 0 : first - EXCERPT_LEAD);
  const end = Math.min(flat.length, start + EXCERPT_CHARS);
  return (start > 0 ? '…' : '') + flat.slice(start, end) + (end < flat.length ? '…' : '');
}

// ---------------------------------------------------------------------------------------------
// Legacy wiki pages, read straight from <home>/wiki.

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
}

/**
 * What the wiki held at its last read, per folder and per page, so a search reads only what
 * changed: a folder's listing is kept while its mtime stands (adding, removing or renaming a
 * page, which every atomic write does, moves it), a page's text and front matter while its
 * inode, size and change times stand. Each search still looks at every folder and page (stat),
 * so an edit made anywhere, by anyone, is seen by the next search.
 */
interface CachedPage {
  signature: string;
  raw: string;
  page: ReturnType<typeof parsePage>;
}
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
    return null;
  }
}

function wikiFiles(wikiDir: string): WikiFile[] {
  const files: WikiFile[] = [{ rel: 'USER.md', ref: 'memory:user' }];
  for (const [dir, prefix] of Object.entries({ ...CURATED_SECTIONS, ...RAW_SECTIONS })) {
    const names = folderNames(path.join(wikiDir, dir));
    for (const name of names ?? []) {
      if (!name.endsWith('.md') || name.startsWith('.')) continue;
      const stem = name.slice(0, -3);
      files.push({ rel: `${dir}/${name}`, ref: prefix === 'note' ? `note:${name}` : `${prefix}:${stem}` });
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
function readPage(wikiDir: string, rel: string): CachedPage | null {
  const file = path.join(wikiDir, rel);
  try {
    const st = statSync(file);
    if (!st.isFile() || st.size > WIKI_FILE_MAX_BYTES) return null;
    const signature = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    const cached = pageCache.get(file);
    if (cached?.signature === signature) return cached;
    const raw = readFileSync(file, 'utf8');
    const fresh = { signature, raw, page: parsePage(raw) };
    pageCache.set(file, fresh);
    return fresh;
  } catch {
    pageCache.delete(file);
    return null;
  }
}

const tokenSet = (text: string) => new Set(rawTokens(text).map(normalizeToken));
const overlap = (terms: readonly string[], set: Set<string>) => terms.filter((t) => set.has(t)).length;

interface WikiCandidate {
  file: WikiFile;
  page: ReturnType<typeof parsePage>;
  match: LexicalMatch;
}

/**
 * Wiki pages, ranked by BM25 over the visible pages (path and text as one field) with the
 * original's field boosts for words in the path, description and tags. Weak evidence abstains:
 * a page needs at least half the query's content words, and two of them for longer queries.
 */
function wikiHits(wikiDir: string, terms: QueryTerms, visible: readonly ScopeRef[]): RankedHit[] {
  const query = terms.meaningful;
  if (query.length === 0) return [];
  const needed = query.length <= 2 ? 1 : 2;
  const pages: WikiCandidate[] = [];
  for (const file of wikiFiles(wikiDir)) {
    const read = readPage(wikiDir, file.rel);
    if (read === null || read.raw.trim() === '') continue;
    const { raw, page } = read;
    if (!pageVisibleTo(page.meta.scopes, visible)) continue;
    pages.push({ file, page, match: lexicalMatch(`${file.rel}\n${raw}`, query) });
  }
  const documentFrequency = new Map(query.map((q) => [q, pages.filter((p) => p.match.counts.get(q)).length]));
  const averageLength = pages.reduce((n, p) => n + p.match.length, 0) / Math.max(1, pages.length);
  const weights = termWeights(documentFrequency, pages.length, averageLength);
  const hits: RankedHit[] = [];
  for (const { file, page, match: m } of pages) {
    if (m.overlap <= 0 || m.matched.length < needed || m.coverage < 0.5) continue;
    const rerank =
      1 +
      0.12 * overlap(query, tokenSet(file.rel)) +
      0.15 * overlap(query, tokenSet(page.meta.description ?? '')) +
      0.2 * overlap(query, new Set(page.meta.tags.flatMap((t) => rawTokens(t).map(normalizeToken)))) +
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

// ---------------------------------------------------------------------------------------------
// Scoped dialogue evidence: the turns of the session's own team and of its project, else its
// workspace, else its Work folder (see dialogue-search.ts for the ranking).

function dialogueHits(db: Db, scopes: SessionScopes, terms: QueryTerms): RankedHit[] {
  const query = terms.meaningful.length ? terms.meaningful : terms.all;
  return rankDialogue(db, scopes, query).map(({ turn, score }) => {
    const ref = `message:${turn.id}`;
    // Never the session id as a fallback name: a title is shown to agents outside the session's team.
    const name = turn.title || turn.agent_name || 'untitled session';
    const build = (): SearchHit => ({
      source: 'dialogue',
      ref,
      title: `${redactSecrets(name).text} (${turn.role})`,
      score,
      citation: {
        sessionId: turn.session_id,
        messageId: turn.id,
        ref: messageRef(db, turn.message_rowid, { sessionId: turn.session_id, messageId: turn.id }),
        scope: turn.project_id ? 'project' : turn.workspace ? 'workspace' : turn.folder_id ? 'folder' : 'session',
      },
      date: new Date(turn.created_at).toISOString(),
      snippet: excerpt(turn.content, query),
    });
    return { score, ref, build };
  });
}
