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

const encodeCursor = (value: number, id: string) => Buffer.from(JSON.stringify([value, id])).toString('base64url');

export function decodeCursor(cursor: string): [number, string] | null {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'string' ? [v[0], v[1]] : null;
  } catch {
    return null;
  }
}

/** Keyset pagination (sort value, id) descending: stable under inserts, constant cost per page. */
export function listFacts(db: Db, f: FactListFilter): FactPage {
  const where: string[] = [];
  const params: Record<string, unknown> = { limit: f.limit + 1 };
  if (f.scope) (where.push('f.scope = @scope'), (params.scope = f.scope));
  if (f.scopeKey !== undefined) (where.push('f.scope_key = @scopeKey'), (params.scopeKey = f.scopeKey));
  if (f.kind) (where.push('f.kind = @kind'), (params.kind = f.kind));
  if (f.text) {
    const match = textMatch(f.text, f.scope && f.scopeKey !== undefined ? factScopeTag(f.scope, f.scopeKey) : null);
    if (match) {
      // The recall index answers in posting-list time; a LIKE scan of 1M facts takes a second.
      where.push(`f.id IN (SELECT r.fact_id FROM memory_facts_fts
        JOIN memory_fact_index_rows r ON r.rowid = memory_facts_fts.rowid WHERE memory_facts_fts MATCH @match)`);
      params.match = match;
    } else {
      where.push("f.text LIKE @text ESCAPE '\\'");
      params.text = `%${f.text.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
    }
  }
  if (f.sessionId) {
    where.push('EXISTS (SELECT 1 FROM memory_fact_evidence e WHERE e.fact_id = f.id AND e.session_id = @sessionId)');
    params.sessionId = f.sessionId;
  }
  const expr = sortExpr[f.sort];
  const cursor = f.cursor ? decodeCursor(f.cursor) : null;
  if (cursor) {
    where.push(`(${expr}, f.id) < (@cursorValue, @cursorId)`);
    params.cursorValue = cursor[0];
    params.cursorId = cursor[1];
  }
  const rows = db
    .prepare(
      `SELECT f.*, ${expr} AS sort_value FROM memory_facts f
       ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
       ORDER BY ${expr} DESC, f.id DESC LIMIT @limit`,
    )
    .all(params) as (FactRow & { sort_value: number })[];
  const more = rows.length > f.limit;
  const page = more ? rows.slice(0, f.limit) : rows;
  const last = page[page.length - 1];
  return { facts: page.map(toFact), nextCursor: more && last ? encodeCursor(last.sort_value, last.id) : null };
}

/** An FTS5 query for the words of `text` (last one as prefix), confined to a scope tag when given. */
function textMatch(text: string, tag: string | null): string | null {
  const words = text.normalize('NFC').toLowerCase().match(/[\p{L}\p{N}]+/gu);
  if (!words) return null;
  const terms = words.map((w, i) => `"${w}"${i === words.length - 1 ? '*' : ''}`).join(' AND ');
  return tag ? `tag:"${tag}" AND text:(${terms})` : `text:(${terms})`;
}

export function countFacts(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM memory_facts').get() as { n: number }).n;
}
