import type { Db } from '../store/db';
import { resolveScopes, type SessionScopes } from './scope';
import { searchFacts, recallQueryText } from './recall/search-facts';
import { queryTerms, type QueryTerms } from '../text/tokenize';
import { rankDialogue } from './dialogue-search';
import { redactSecrets } from './secrets';
import { messageRef } from './citations';
import { excerpt, type RankedHit, type SearchHit } from './search-hit';
import { wikiHits } from './wiki-search';

/**
 * memory_search: the explicit, wider lookup. Scoped facts (explicit mode: no abstain rule, no
 * coverage threshold), the legacy Markdown wiki pages, and scoped dialogue evidence, merged and
 * sorted by (-score, ref). Runs on the read lane (a worker thread with a read-only connection).
 */
export const SEARCH_SOURCES = ['facts', 'wiki', 'dialogue'] as const;
export type SearchSource = (typeof SEARCH_SOURCES)[number];

export type { SearchHit } from './search-hit';
export { excerpt } from './search-hit';

export interface SearchRequest {
  sessionId: string;
  query: string;
  limit: number;
  sources: readonly SearchSource[];
}

export function memorySearch(db: Db, wikiDir: string, req: SearchRequest): SearchHit[] {
  return mergeSearchParts([searchPart(db, wikiDir, req)], req.limit);
}

/**
 * The best `limit` hits of the requested sources, sorted, scores unrounded. The best `limit` of a
 * union are among the best `limit` of each of its parts, so a search split by source across
 * threads and merged by `mergeSearchParts` returns exactly what one search of all of them does.
 */
export function searchPart(db: Db, wikiDir: string, req: SearchRequest): SearchHit[] {
  const scopes = resolveScopes(db, req.sessionId);
  const text = recallQueryText(req.query);
  const terms = queryTerms(text);
  const ranked: RankedHit[] = [];
  if (req.sources.includes('facts')) ranked.push(...factHits(db, scopes, text, req.limit));
  if (req.sources.includes('wiki')) ranked.push(...wikiHits(wikiDir, terms, scopes.visible));
  if (req.sources.includes('dialogue')) ranked.push(...dialogueHits(db, scopes, terms));
  return ranked
    .sort(bestFirst)
    .slice(0, req.limit)
    .map((r) => r.build());
}

/** The parts' hits merged and sorted by (-score, ref), the first `limit`, scores rounded to 1e-6. */
export function mergeSearchParts(parts: readonly SearchHit[][], limit: number): SearchHit[] {
  const hits = parts.length === 1 ? parts[0]! : parts.flat().sort(bestFirst).slice(0, limit);
  return hits.map((h) => ({ ...h, score: Math.round(h.score * 1e6) / 1e6 }));
}

const bestFirst = (a: { score: number; ref: string }, b: { score: number; ref: string }) =>
  b.score - a.score || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0);

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
// Scoped dialogue evidence: the turns of the session's own team and of its project, else its
// workspace, else its Work folder (see dialogue-search.ts for the ranking).

function dialogueHits(db: Db, scopes: SessionScopes, terms: QueryTerms): RankedHit[] {
  const query = terms.meaningful.length ? terms.meaningful : terms.all;
  // Hits from one session share its title: it is redacted once per search.
  const titles = new Map<string, string>();
  const redactedTitle = (name: string) => {
    let title = titles.get(name);
    if (title === undefined) titles.set(name, (title = redactSecrets(name).text));
    return title;
  };
  return rankDialogue(db, scopes, query).map(({ turn, score }) => {
    const ref = `message:${turn.id}`;
    // Never the session id as a fallback name: a title is shown to agents outside the session's team.
    const name = turn.title || turn.agent_name || 'untitled session';
    const build = (): SearchHit => ({
      source: 'dialogue',
      ref,
      title: `${redactedTitle(name)} (${turn.role})`,
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
