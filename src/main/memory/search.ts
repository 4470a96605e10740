import { pageVisibleTo } from '../wiki/page-scopes';
import type { ScopeRef } from '../../shared/schemas';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db';
import { resolveScopes, type SessionScopes } from './scope';
import { searchFacts, recallQueryText } from './recall/search-facts';
import { queryTerms, rawTokens, normalizeToken, type QueryTerms } from './recall/tokenize';
import { lexicalMatch } from './recall/rank';
import { findCandidates, prepared, scopeTag, type TaggedIndex } from './recall/fts';
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
}

export interface SearchRequest {
  sessionId: string;
  query: string;
  limit: number;
  sources: readonly SearchSource[];
}

export function memorySearch(db: Db, wikiDir: string, req: SearchRequest): SearchHit[] {
  const scopes = resolveScopes(db, req.sessionId);
  const text = recallQueryText(req.query);
  const terms = queryTerms(text);
  const hits: SearchHit[] = [];
  if (req.sources.includes('facts')) hits.push(...factHits(db, scopes, text, req.limit));
  if (req.sources.includes('wiki')) hits.push(...wikiHits(wikiDir, terms, scopes.visible));
  if (req.sources.includes('dialogue')) hits.push(...dialogueHits(db, scopes, terms));
  hits.sort((a, b) => b.score - a.score || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
  return hits.slice(0, req.limit).map((h) => ({ ...h, score: Math.round(h.score * 1e6) / 1e6 }));
}

function factHits(db: Db, scopes: SessionScopes, text: string, limit: number): SearchHit[] {
  return searchFacts(db, scopes, text, { mode: 'explicit', limit }).facts.map((f) => ({
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
  }));
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

/**
 * The hit with a snippet computed only when read. Hits are built for every candidate but only
 * the few returned are read, and a snippet redacts secrets from the whole text first.
 */
function withLazySnippet(hit: Omit<SearchHit, 'snippet'>, make: () => string): SearchHit {
  let snippet: string | undefined;
  return Object.defineProperty(hit, 'snippet', { enumerable: true, get: () => (snippet ??= make()) }) as SearchHit;
}

// ---------------------------------------------------------------------------------------------
// Legacy wiki pages (reference §6.2.2), read straight from <home>/wiki.

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

function wikiFiles(wikiDir: string): WikiFile[] {
  const files: WikiFile[] = [{ rel: 'USER.md', ref: 'memory:user' }];
  for (const [dir, prefix] of Object.entries({ ...CURATED_SECTIONS, ...RAW_SECTIONS })) {
    let names: string[];
    try {
      names = readdirSync(path.join(wikiDir, dir));
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      if (!name.endsWith('.md') || name.startsWith('.')) continue;
      const stem = name.slice(0, -3);
      files.push({ rel: `${dir}/${name}`, ref: prefix === 'note' ? `note:${name}` : `${prefix}:${stem}` });
    }
  }
  return files;
}

function readPage(wikiDir: string, rel: string): string | null {
  const file = path.join(wikiDir, rel);
  try {
    const st = statSync(file);
    if (!st.isFile() || st.size > WIKI_FILE_MAX_BYTES) return null;
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

const tokenSet = (text: string) => new Set(rawTokens(text).map(normalizeToken));
const overlap = (terms: readonly string[], set: Set<string>) => terms.filter((t) => set.has(t)).length;

function wikiHits(wikiDir: string, terms: QueryTerms, visible: readonly ScopeRef[]): SearchHit[] {
  const meaningful = terms.meaningful;
  // Weak evidence abstains: a page needs most of the query's content words (reference §6.2.2).
  if (meaningful.length === 0) return [];
  const query = meaningful;
  const needed = meaningful.length <= 2 ? 1 : 2;
  const hits: SearchHit[] = [];
  for (const f of wikiFiles(wikiDir)) {
    const raw = readPage(wikiDir, f.rel);
    if (raw === null || raw.trim() === '') continue;
    const page = parsePage(raw);
    if (!pageVisibleTo(page.meta.scopes, visible)) continue;
    const m = lexicalMatch(`${f.rel}\n${raw}`, query);
    if (m.base <= 0 || m.matched.length < needed || m.coverage < 0.5) continue;
    const rerank =
      1 +
      0.12 * overlap(query, tokenSet(f.rel)) +
      0.15 * overlap(query, tokenSet(page.meta.description ?? '')) +
      0.2 * overlap(query, new Set(page.meta.tags.flatMap((t) => rawTokens(t).map(normalizeToken)))) +
      0.5 * m.coverage;
    hits.push(
      withLazySnippet(
        {
          source: 'wiki',
          ref: f.ref,
          title: page.meta.description ?? f.rel,
          score: m.base * rerank,
          citation: { path: f.rel },
        },
        () => excerpt(page.body, meaningful),
      ),
    );
  }
  return hits;
}

// ---------------------------------------------------------------------------------------------
// Scoped dialogue evidence (reference §6.2.3 with C2).

const DIALOGUE_INDEX: TaggedIndex = {
  table: 'session_messages_fts',
  tagColumn: 'tags',
  textColumn: 'content',
  newestFirst: 'ASC',
};
const DIALOGUE_CANDIDATES = { perTermCap: 60, deepCap: 300, maxTerms: 5 };

/**
 * The tags a session's dialogue search may read: its owner's whole team, plus the sessions of
 * the owner's project, else of its normalized workspace, else of its Work folder.
 */
export function dialogueTags(scopes: SessionScopes): string[] {
  const o = scopes.owner;
  const tags = [scopeTag('o', o.id)];
  if (o.projectId) tags.push(scopeTag('p', o.projectId));
  else if (o.workspace) tags.push(scopeTag('w', o.workspace));
  else if (o.folderId) tags.push(scopeTag('f', o.folderId));
  return tags;
}

interface DialogueRow {
  rowid: number;
  id: string;
  session_id: string;
  project_id: string | null;
  workspace: string | null;
  folder_id: string | null;
  role: string;
  content: string;
  title: string | null;
  agent_name: string | null;
}

function dialogueHits(db: Db, scopes: SessionScopes, terms: QueryTerms): SearchHit[] {
  const query = terms.meaningful.length ? terms.meaningful : terms.all;
  if (query.length === 0) return [];
  const candidates = findCandidates(db, DIALOGUE_INDEX, dialogueTags(scopes), query, DIALOGUE_CANDIDATES);
  if (candidates.rowids.length === 0) return [];
  // The index holds only eligible rows; the same exclusions are checked again here, in SQL.
  const rows = prepared(
    db,
    `SELECT m.rowid, m.id, m.session_id, m.role, m.content, s.title, s.agent_name, s.project_id, s.workspace, s.folder_id
       FROM dialogue_index_rows r
       JOIN session_messages m ON m.id = r.message_id
       JOIN sessions s ON s.id = m.session_id
       WHERE r.rowid IN (SELECT value FROM json_each(?))
         AND m.role IN ('user', 'assistant') AND m.hidden = 0 AND m.side_chat_context = 0
         AND m.tool_call_round = 0 AND m.compacted = 0 AND (m.system_generated = 0 OR m.is_summary = 1)
         AND m.model_context IS NULL`,
  ).all(JSON.stringify(candidates.rowids)) as DialogueRow[];
  const hits: SearchHit[] = [];
  for (const r of rows) {
    // Never the session id as a fallback name: a title is shown to agents outside the session's team.
    const name = r.title || r.agent_name || 'untitled session';
    const m = lexicalMatch(`${name}\n${r.role}\n${r.content}`, query);
    if (m.base <= 0) continue;
    hits.push(
      withLazySnippet(
        {
          source: 'dialogue',
          ref: `message:${r.id}`,
          title: `${redactSecrets(name).text} (${r.role})`,
          score: m.base,
          citation: {
            sessionId: r.session_id,
            messageId: r.id,
            ref: messageRef(db, r.rowid, { sessionId: r.session_id, messageId: r.id }),
            scope: r.project_id ? 'project' : r.workspace ? 'workspace' : r.folder_id ? 'folder' : 'session',
          },
        },
        () => excerpt(r.content, query),
      ),
    );
  }
  return hits;
}
