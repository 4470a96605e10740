import type { Db } from './db';
import type { FactKind, Scope } from '../../shared/domain';
import type { FactRecord } from '../../shared/schemas';
import { toFact, type FactRow } from './facts';
import { factScopeTag } from '../memory/recall/search-facts';

export const FACT_SORTS = ['reinforcement', 'confidence', 'recency'] as const;
export type FactSort = (typeof FACT_SORTS)[number];

const sortExpr: Record<FactSort, string> = {
  reinforcement: 'f.reinforcement',
  confidence: "(CASE f.confidence WHEN 'high' THEN 2 WHEN 'medium' THEN 1 ELSE 0 END)",
  recency: 'f.updated_at',
};

export interface FactListFilter {
  scope?: Scope;
  scopeKey?: string;
  kind?: FactKind;
  /**
   * Words the fact text must contain, case-insensitively, the last one as a prefix (so a filter
   * box narrows as you type). Text with no letters or digits is matched as a plain substring.
   */
  text?: string;
  /** Only facts with evidence from this session. */
  sessionId?: string;
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

/** Keyset pagination (sort value, seq) descending: stable under inserts, constant cost per page. */
export function listFacts(db: Db, f: FactListFilter): FactPage {
  const where: string[] = [];
  const params: Record<string, unknown> = { limit: f.limit + 1 };
  const inScope = scopeCondition(f.scope, f.scopeKey);
  if (inScope) (where.push(inScope), (params.scope = f.scope), (params.scopeKey = f.scopeKey));
  if (f.kind) (where.push('f.kind = @kind'), (params.kind = f.kind));
  if (f.text) {
    const match = textMatch(f.text, f.scope && f.scopeKey !== undefined ? factScopeTag(f.scope, f.scopeKey) : null);
    if (match) {
      // The recall index answers in posting-list time; a LIKE scan of 1M facts takes a second.
      where.push('f.seq IN (SELECT rowid FROM memory_facts_fts WHERE memory_facts_fts MATCH @match)');
      params.match = match;
    } else {
      where.push("f.text LIKE @text ESCAPE '\\'");
      params.text = `%${f.text.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
    }
  }
  if (f.sessionId) {
    where.push('EXISTS (SELECT 1 FROM memory_fact_evidence e WHERE e.fact_seq = f.seq AND e.session_id = @sessionId)');
    params.sessionId = f.sessionId;
  }
  const expr = sortExpr[f.sort];
  const cursor = f.cursor ? decodeFactCursor(f.cursor) : null;
  if (cursor) {
    where.push(`(${expr}, f.seq) < (@cursorValue, @cursorSeq)`);
    params.cursorValue = cursor[0];
    params.cursorSeq = cursor[1];
  }
  const rows = db
    .prepare(
      `SELECT f.*, ${expr} AS sort_value FROM memory_facts f
       ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
       ORDER BY ${expr} DESC, f.seq DESC LIMIT @limit`,
    )
    .all(params) as (FactRow & { sort_value: number })[];
  const more = rows.length > f.limit;
  const page = more ? rows.slice(0, f.limit) : rows;
  const last = page[page.length - 1];
  return { facts: page.map(toFact), nextCursor: more && last ? encodeCursor(last.sort_value, last.seq) : null };
}

/** An FTS5 query for the words of `text` (last one as prefix), confined to a scope tag when given. */
function textMatch(text: string, tag: string | null): string | null {
  const words = text
    .normalize('NFC')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu);
  if (!words) return null;
  const terms = words.map((w, i) => `"${w}"${i === words.length - 1 ? '*' : ''}`).join(' AND ');
  return tag ? `tag:"${tag}" AND text:(${terms})` : `text:(${terms})`;
}

export function countFacts(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM memory_facts').get() as { n: number }).n;
}
