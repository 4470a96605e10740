import type { Db } from './db';
import type { FactKind, FactRecallMode, Scope } from '../../shared/domain';
import type { FactRecord } from '../../shared/schemas';
import { toFact, type FactRow } from './facts';
import { normalizeToken, rawTokens, STOP_WORDS } from '../text/tokenize';
import { factToken, quoteToken } from '../text/fact-index';
import { inverseDocumentFrequency, saturation } from '../text/bm25';
import { scopeColumn, totalFacts, walkSortIndex } from './fact-order';
import { kindCode } from './fact-codes';

export const FACT_SORTS = ['reinforcement', 'confidence', 'recency', 'relevance'] as const;
export type FactSort = (typeof FACT_SORTS)[number];

/**
 * Sort orders on memory_fact_rows (the table behind the memory_facts view; confidence is stored
 * as its rank), each with a store-wide index. Every condition below is on the table too: pages
 * and counts are chosen there, and only a page's rows are read through the view. A sort through
 * the view's join could otherwise start from memory_scopes and sort the whole store once SQLite
 * has statistics.
 */
const sortExpr: Record<Exclude<FactSort, 'relevance'>, string> = {
  reinforcement: 'f.reinforcement',
  confidence: 'f.confidence',
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

/** The memory_scopes rows matching scope and/or key (a WHERE clause, or null for every scope). */
function scopeLookup(scope: Scope | undefined, scopeKey: string | undefined): string | null {
  if (!scope && scopeKey === undefined) return null;
  const conditions = [scope && 'scope = @scope', scopeKey !== undefined && 'scope_key = @scopeKey'].filter(Boolean);
  return conditions.join(' AND ');
}

/**
 * Restricts `f` to the scopes matching scope and/or key, through memory_scopes' unique index.
 * `walk` (see fact-order.ts) hides scope_id from the planner so it reads the sort index in order.
 */
function scopeCondition(scope: Scope | undefined, scopeKey: string | undefined, walk = false): string | null {
  const where = scopeLookup(scope, scopeKey);
  if (!where) return null;
  const lookup = `SELECT id FROM memory_scopes WHERE ${where}`;
  const column = scopeColumn(walk);
  return scope && scopeKey !== undefined ? `${column} = (${lookup})` : `${column} IN (${lookup})`;
}

/** Whether a sorted page of the filter's scopes walks the store-wide sort index (fact-order.ts). */
function walksSortIndex(db: Db, f: FactListFilter): boolean {
  const where = scopeLookup(f.scope, f.scopeKey);
  if (!where) return false;
  const inScope = (
    db
      .prepare(`SELECT COALESCE(sum(facts), 0) AS n FROM memory_scopes WHERE ${where}`)
      .get({ scope: f.scope, scopeKey: f.scopeKey }) as { n: number }
  ).n;
  return walkSortIndex(inScope, totalFacts(db), f.limit + 1);
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
function filterConditions(db: Db, f: Omit<FactListFilter, 'sort' | 'cursor' | 'limit'>, walk = false): Conditions {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  const inScope = scopeCondition(f.scope, f.scopeKey, walk);
  if (inScope) {
    where.push(inScope);
    params.scope = f.scope;
    params.scopeKey = f.scopeKey;
  }
  if (f.kind) {
    where.push('f.kind = @kind');
    params.kind = kindCode(f.kind);
  }
  if (f.recall) {
    where.push('f.recall = @recall');
    params.recall = f.recall;
  }
  let match: TextMatch | null = null;
  let textWhere = -1;
  if (f.text) {
    match = textMatch(f.text, f.scope && f.scopeKey !== undefined ? scopeIdOf(db, f.scope, f.scopeKey) : null);
    if (match) {
      // The recall index answers in posting-list time; a LIKE scan of 1M facts takes a second.
      textWhere = where.push('f.seq IN (SELECT rowid FROM memory_facts_fts WHERE memory_facts_fts MATCH @match)') - 1;
      params.match = match.any;
    } else {
      where.push("f.text LIKE @text ESCAPE '\\'");
      params.text = `%${f.text.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
    }
  }
  if (f.sessionId) {
    where.push(
      `EXISTS (SELECT 1 FROM memory_fact_evidence_rows e WHERE e.fact_seq = f.seq
         AND e.session_ref = (SELECT ref FROM memory_evidence_sessions WHERE session_id = @sessionId))`,
    );
    params.sessionId = f.sessionId;
  }
  return { where, params, match, textWhere };
}

/** How many of the newest matches relevance ranks, for any word and for all the words. */
const RELEVANCE_CANDIDATES = 2_000;

type SortedRow = FactRow & { sort_value: number };

/**
 * Keyset pagination (sort value, seq) descending: stable under inserts, constant cost per page.
 * Relevance ranks a bounded set of candidates (see relevanceRows).
 */
export function listFacts(db: Db, f: FactListFilter): FactPage {
  const sorted = f.sort !== 'relevance' || !f.text;
  const { where, params, match, textWhere } = filterConditions(db, f, sorted && walksSortIndex(db, f));
  const cursor = f.cursor ? decodeFactCursor(f.cursor) : null;
  let rows: SortedRow[];
  if (f.sort === 'relevance' && match !== null) {
    where.splice(textWhere, 1);
    rows = relevanceRows(db, match, where, params).filter(
      (r) => !cursor || r.sort_value < cursor[0] || (r.sort_value === cursor[0] && r.seq < cursor[1]),
    );
    rows = rows.slice(0, f.limit + 1);
  } else {
    const expr = sortExpr[f.sort === 'relevance' ? 'reinforcement' : f.sort];
    if (cursor) {
      where.push(`(${expr}, f.seq) < (@cursorValue, @cursorSeq)`);
      params.cursorValue = cursor[0];
      params.cursorSeq = cursor[1];
    }
    params.limit = f.limit + 1;
    const page = db
      .prepare(
        `SELECT f.seq, ${expr} AS sort_value FROM memory_fact_rows f
         ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
         ORDER BY ${expr} DESC, f.seq DESC LIMIT @limit`,
      )
      .all(params) as { seq: number; sort_value: number }[];
    rows = withFactRows(db, page);
  }
  const more = rows.length > f.limit;
  const page = more ? rows.slice(0, f.limit) : rows;
  const last = page[page.length - 1];
  return { facts: page.map(toFact), nextCursor: more && last ? encodeCursor(last.sort_value, last.seq) : null };
}

/** A page's rows read through the memory_facts view, in the page's order, each with its sort value. */
export function withFactRows(db: Db, page: { seq: number; sort_value: number }[]): SortedRow[] {
  if (page.length === 0) return [];
  const bySeq = new Map(
    (
      db
        .prepare('SELECT * FROM memory_facts WHERE seq IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify(page.map((p) => p.seq))) as FactRow[]
    ).map((r) => [r.seq, r]),
  );
  return page.flatMap((p) => {
    const row = bySeq.get(p.seq);
    return row ? [{ ...row, sort_value: p.sort_value }] : [];
  });
}

/**
 * Relevance candidates: the newest matches of any word, plus the newest facts holding every word
 * (the best matches, found however old), filtered like any page, then ranked by BM25 over those
 * candidates (each word's document frequency among them; the last word counts its prefix
 * matches), best first, ties newest first. Bounded work at any store size.
 */
function relevanceRows(db: Db, match: TextMatch, where: string[], params: Record<string, unknown>): SortedRow[] {
  const newest = db.prepare(
    `SELECT rowid FROM memory_facts_fts WHERE memory_facts_fts MATCH ? ORDER BY rowid DESC LIMIT ${RELEVANCE_CANDIDATES}`,
  );
  const ids = new Set<number>();
  for (const query of [match.any, match.all])
    for (const r of newest.all(query) as { rowid: number }[]) ids.add(r.rowid);
  const rows = db
    .prepare(
      `SELECT v.* FROM memory_facts v WHERE v.seq IN (
         SELECT f.seq FROM memory_fact_rows f WHERE f.seq IN (SELECT value FROM json_each(@candidates))
         ${where.length ? 'AND ' + where.join(' AND ') : ''})`,
    )
    .all({ ...params, candidates: JSON.stringify([...ids]) }) as FactRow[];
  const scored = scoreRows(rows, match.words);
  return scored.sort((a, b) => b.sort_value - a.sort_value || b.seq - a.seq);
}

/** BM25 of each row over the query words (the last one also as a prefix), within the rows. */
function scoreRows(rows: FactRow[], words: TextMatch['words']): SortedRow[] {
  const bags = rows.map((r) => {
    const tokens = rawTokens(r.text).map(normalizeToken);
    const tf = words.map(
      (w) => tokens.filter((t) => t === w.term || (w.prefix !== null && t.startsWith(w.prefix))).length,
    );
    return { row: r, tf, length: tokens.length };
  });
  const average = bags.reduce((n, b) => n + b.length, 0) / Math.max(1, bags.length);
  const idf = words.map((_, i) => inverseDocumentFrequency(bags.filter((b) => b.tf[i]! > 0).length, bags.length));
  return bags.map(({ row, tf, length }) => {
    const score = tf.reduce((n, f, i) => n + idf[i]! * saturation(f, length, average), 0);
    // Rounded so a page's cursor compares equal to the score it came from.
    return { ...row, sort_value: Math.round(score * 1e9) / 1e9 };
  });
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
  const { where, params } = filterConditions(db, f);
  return (
    db.prepare(`SELECT count(*) AS n FROM memory_fact_rows f WHERE ${where.join(' AND ')}`).get(params) as { n: number }
  ).n;
}

interface TextMatch {
  /** Facts holding any of the words. */
  any: string;
  /** Facts holding all of them. */
  all: string;
  /** Each word folded, and for the last one the prefix it also matches as. */
  words: { term: string; prefix: string | null }[];
}

/** The scope's id in memory_scopes; -1 when it holds no facts (no token can match it). */
function scopeIdOf(db: Db, scope: Scope, key: string): number {
  const row = db.prepare('SELECT id FROM memory_scopes WHERE scope = ? AND scope_key = ?').get(scope, key) as
    { id: number } | undefined;
  return row?.id ?? -1;
}

/**
 * FTS5 queries for the words of `text` (see text/fact-index.ts for the tokens): each word
 * folded (databases, database) in the scope asked for, or in every scope; the last word also as a
 * prefix of any folded word, so typing narrows. Stop-words are dropped when other words remain.
 * The prefix part is not confined to the scope in the index; the scope condition beside it is.
 */
function textMatch(text: string, scopeId: number | null): TextMatch | null {
  const raw = rawTokens(text);
  if (raw.length === 0) return null;
  const content = raw.filter((w) => !STOP_WORDS.has(w));
  const chosen = [...new Set(content.length ? content : raw)];
  const last = raw[raw.length - 1];
  const words = chosen.map((w) => ({ term: normalizeToken(w), prefix: w === last ? w : null }));
  const groups = words.map(({ term, prefix }) => {
    const exact = scopeId === null ? `${quoteToken(`${term}_`)}*` : quoteToken(factToken(Math.max(scopeId, 0), term));
    const prefixes = prefix === null ? [] : [...new Set([prefix, term])].map((p) => `${quoteToken(p)}*`);
    return `(${[exact, ...prefixes].join(' OR ')})`;
  });
  return { any: groups.join(' OR '), all: groups.join(' AND '), words };
}

export function countFacts(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM memory_fact_rows').get() as { n: number }).n;
}
