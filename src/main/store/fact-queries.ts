import type { Db } from './db';
import type { FactKind, FactRecallMode, Scope } from '../../shared/domain';
import type { FactRecord } from '../../shared/schemas';
import { toFact, type FactRow } from './facts';
import { factScopeTag } from './index-tags';
import { normalizeToken, rawTokens, STOP_WORDS, surfaceForms } from '../text/tokenize';

export const FACT_SORTS = ['reinforcement', 'confidence', 'recency', 'relevance'] as const;
export type FactSort = (typeof FACT_SORTS)[number];

const sortExpr: Record<Exclude<FactSort, 'relevance'>, string> = {
  reinforcement: 'f.reinforcement',
  confidence: "(CASE f.confidence WHEN 'high' THEN 2 WHEN 'medium' THEN 1 ELSE 0 END)",
  recency: 'f.updated_at',
};

export interface FactListFilter {
  scope?: Scope;
  scopeKey?: string;
  kind?: FactKind;
  /**
   * Words to look for: a fact matches when it holds any of them (a word also matches its
   * inflections, `databases` -> database, and the last word is a prefix, so the list narrows as
   * you type). Text with no letters or digits is matched as a plain substring.
   */
  text?: string;
  /** Only facts with evidence from this session. */
  sessionId?: string;
  /** Only pinned, paused or normal facts. */
  recall?: FactRecallMode;
  /** relevance (BM25 over the words, more words matched first) needs text. */
  sort: FactSort;
  /** Opaque keyset cursor from a previous page. */
  cursor?: string;
  limit: number;
}

export interface FactPage {
  facts: FactRecord[];
  nextCursor: string | null;
}

/** A keyset cursor: the last row's sort value and its tiebreaker (a fact's seq, a session's id). */
export const encodeCursor = (value: number, tiebreak: number | string): string =>
  Buffer.from(JSON.stringify([value, tiebreak])).toString('base64url');

function decodePair(cursor: string): [unknown, unknown] | null {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' ? [v[0], v[1]] : null;
  } catch {
    return null;
  }
}

export function decodeCursor(cursor: string): [number, string] | null {
  const v = decodePair(cursor);
  return v && typeof v[1] === 'string' ? [v[0] as number, v[1]] : null;
}

/** Fact pages break ties on seq, which the sort indexes end with (it is the rowid). */
export function decodeFactCursor(cursor: string): [number, number] | null {
  const v = decodePair(cursor);
  return v && Number.isSafeInteger(v[1]) ? [v[0] as number, v[1] as number] : null;
}

/** Restricts `f` to the scopes matching scope and/or key, through memory_scopes' unique index. */
function scopeCondition(scope: Scope | undefined, scopeKey: string | undefined): string | null {
  if (!scope && scopeKey === undefined) return null;
  const conditions = [scope && 'scope = @scope', scopeKey !== undefined && 'scope_key = @scopeKey'].filter(Boolean);
  const lookup = `SELECT id FROM memory_scopes WHERE ${conditions.join(' AND ')}`;
  // One scope is an equality, so SQLite walks that scope's sort index in order.
  return scope && scopeKey !== undefined ? `f.scope_id = (${lookup})` : `f.scope_id IN (${lookup})`;
}

interface Conditions {
  where: string[];
  params: Record<string, unknown>;
  /** The FTS5 queries when the text filter uses the index (relevance needs them). */
  match: TextMatch | null;
  /** Index of the full-text condition in `where` (relevance replaces it with a bounded join). */
  textWhere: number;
}

/** The WHERE terms every filter but the cursor adds; shared by the list and its count. */
function filterConditions(f: Omit<FactListFilter, 'sort' | 'cursor' | 'limit'>): Conditions {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  const inScope = scopeCondition(f.scope, f.scopeKey);
  if (inScope) {
    where.push(inScope);
    params.scope = f.scope;
    params.scopeKey = f.scopeKey;
  }
  if (f.kind) {
    where.push('f.kind = @kind');
    params.kind = f.kind;
  }
  if (f.recall) {
    where.push('f.recall = @recall');
    params.recall = f.recall;
  }
  let match: TextMatch | null = null;
  let textWhere = -1;
  if (f.text) {
    match = textMatch(f.text, f.scope && f.scopeKey !== undefined ? factScopeTag(f.scope, f.scopeKey) : null);
    if (match) {
      // The recall index answers in posting-list time; a LIKE scan of 1M facts takes a second.
      textWhere = where.push('f.seq IN (SELECT rowid FROM memory_facts_fts WHERE memory_facts_fts MATCH @match)') - 1;
      params.match = match.any;
      params.matchAll = match.all;
    } else {
      where.push("f.text LIKE @text ESCAPE '\\'");
      params.text = `%${f.text.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
    }
  }
  if (f.sessionId) {
    where.push('EXISTS (SELECT 1 FROM memory_fact_evidence e WHERE e.fact_seq = f.seq AND e.session_id = @sessionId)');
    params.sessionId = f.sessionId;
  }
  return { where, params, match, textWhere };
}

/** How many of the newest matches relevance ranks, for any word and for all the words. */
const RELEVANCE_CANDIDATES = 2_000;

/**
 * Relevance candidates: the newest matches of any word, plus the newest facts holding every word
 * (the best matches, found however old), each scored by BM25 over the same words (the score does
 * not depend on whether the query joins them with OR or AND). Bounded work at any store size.
 */
const RELEVANCE_FROM = `(
  SELECT rowid, max(score) AS score FROM (
    SELECT * FROM (SELECT rowid, -bm25(memory_facts_fts, 0.0, 1.0) AS score FROM memory_facts_fts
                   WHERE memory_facts_fts MATCH @match ORDER BY rowid DESC LIMIT ${RELEVANCE_CANDIDATES})
    UNION ALL
    SELECT * FROM (SELECT rowid, -bm25(memory_facts_fts, 0.0, 1.0) AS score FROM memory_facts_fts
                   WHERE memory_facts_fts MATCH @matchAll ORDER BY rowid DESC LIMIT ${RELEVANCE_CANDIDATES}))
  GROUP BY rowid) m JOIN memory_facts f ON f.seq = m.rowid`;

/**
 * Keyset pagination (sort value, seq) descending: stable under inserts, constant cost per page.
 * Relevance ranks a bounded set of candidates by BM25 (the tag column weighs nothing): the newest
 * 2,000 facts holding any of the words and the newest 2,000 holding all of them.
 */
export function listFacts(db: Db, f: FactListFilter): FactPage {
  const { where, params, match, textWhere } = filterConditions(f);
  params.limit = f.limit + 1;
  const relevance = f.sort === 'relevance' && match !== null;
  // The bounded join replaces the full match set.
  if (relevance) where.splice(textWhere, 1);
  const expr = relevance ? 'm.score' : sortExpr[f.sort === 'relevance' ? 'reinforcement' : f.sort];
  const cursor = f.cursor ? decodeFactCursor(f.cursor) : null;
  if (cursor) {
    where.push(`(${expr}, f.seq) < (@cursorValue, @cursorSeq)`);
    params.cursorValue = cursor[0];
    params.cursorSeq = cursor[1];
  }
  const from = relevance ? RELEVANCE_FROM : 'memory_facts f';
  const rows = db
    .prepare(
      `SELECT f.*, ${expr} AS sort_value FROM ${from}
       ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
       ORDER BY ${expr} DESC, f.seq DESC LIMIT @limit`,
    )
    .all(params) as (FactRow & { sort_value: number })[];
  const more = rows.length > f.limit;
  const page = more ? rows.slice(0, f.limit) : rows;
  const last = page[page.length - 1];
  return { facts: page.map(toFact), nextCursor: more && last ? encodeCursor(last.sort_value, last.seq) : null };
}

/**
 * How many facts a filter matches. A scope filter alone is answered from memory_scopes' counts;
 * anything else counts rows.
 */
export function countMatchingFacts(db: Db, f: Omit<FactListFilter, 'sort' | 'cursor' | 'limit'>): number {
  if (!f.kind && !f.text && !f.sessionId && !f.recall) {
    const where = [f.scope && 'scope = @scope', f.scopeKey !== undefined && 'scope_key = @scopeKey'].filter(Boolean);
    return (
      db
        .prepare(
          `SELECT COALESCE(sum(facts), 0) AS n FROM memory_scopes ${where.length ? 'WHERE ' + where.join(' AND ') : ''}`,
        )
        .get({ scope: f.scope, scopeKey: f.scopeKey }) as { n: number }
    ).n;
  }
  const { where, params } = filterConditions(f);
  return (
    db.prepare(`SELECT count(*) AS n FROM memory_facts f WHERE ${where.join(' AND ')}`).get(params) as { n: number }
  ).n;
}

interface TextMatch {
  /** Facts holding any of the words. */
  any: string;
  /** Facts holding all of them. */
  all: string;
}

/**
 * FTS5 queries for the words of `text`: each word as itself (a prefix when it is the last, so
 * typing narrows) or any surface form of its folded stem (databases, database); stop-words are
 * dropped when other words remain. Confined to a scope tag when given.
 */
function textMatch(text: string, tag: string | null): TextMatch | null {
  const words = rawTokens(text);
  if (words.length === 0) return null;
  const content = words.filter((w) => !STOP_WORDS.has(w));
  const chosen = [...new Set(content.length ? content : words)];
  const last = words[words.length - 1];
  const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;
  const groups = chosen.map((w) => {
    const forms = new Set([quote(w) + (w === last ? '*' : ''), ...surfaceForms(normalizeToken(w)).map(quote)]);
    return `(${[...forms].join(' OR ')})`;
  });
  const scoped = (terms: string) => (tag ? `tag:"${tag}" AND text:(${terms})` : `text:(${terms})`);
  return { any: scoped(groups.join(' OR ')), all: scoped(groups.join(' AND ')) };
}

export function countFacts(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM memory_facts').get() as { n: number }).n;
}
