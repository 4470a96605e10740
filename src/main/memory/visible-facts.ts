import type { Db } from '../store/db';
import { toFact, type FactRow } from '../store/facts';
import { decodeCursor, type FactPage, type FactSort } from '../store/fact-queries';
import type { FactKind, Scope } from '../../shared/domain';
import type { FactRecord, ScopeRef } from '../../shared/schemas';
import { visibleScopeFilter } from './scope';

export interface VisibleFactFilter {
  kind?: FactKind;
  text?: string;
  sort: FactSort;
  cursor?: string;
  limit: number;
}

const sortExpr: Record<FactSort, string> = {
  reinforcement: 'f.reinforcement',
  confidence: "(CASE f.confidence WHEN 'high' THEN 2 WHEN 'medium' THEN 1 ELSE 0 END)",
  recency: 'f.updated_at',
};

const encodeCursor = (value: number, id: string) => Buffer.from(JSON.stringify([value, id])).toString('base64url');

/**
 * Facts inside the given scopes only. The scope filter is part of the WHERE clause, so no
 * other scope's fact can reach the page, the cursor or the count of a caller.
 */
export function listVisibleFacts(db: Db, visible: ScopeRef[], f: VisibleFactFilter): FactPage {
  if (visible.length === 0) return { facts: [], nextCursor: null };
  const scoped = visibleScopeFilter(visible);
  const where = [scoped.sql];
  const params: unknown[] = [...scoped.params];
  if (f.kind) (where.push('f.kind = ?'), params.push(f.kind));
  if (f.text) {
    where.push("f.text LIKE ? ESCAPE '\\'");
    params.push(`%${f.text.replace(/[\\%_]/g, (c) => '\\' + c)}%`);
  }
  const expr = sortExpr[f.sort];
  const cursor = f.cursor ? decodeCursor(f.cursor) : null;
  if (cursor) (where.push(`(${expr}, f.id) < (?, ?)`), params.push(cursor[0], cursor[1]));
  const rows = db
    .prepare(
      `SELECT f.*, ${expr} AS sort_value FROM memory_facts f WHERE ${where.join(' AND ')}
       ORDER BY ${expr} DESC, f.id DESC LIMIT ?`,
    )
    .all(...params, f.limit + 1) as (FactRow & { sort_value: number })[];
  const more = rows.length > f.limit;
  const page = more ? rows.slice(0, f.limit) : rows;
  const last = page[page.length - 1];
  return { facts: page.map(toFact), nextCursor: more && last ? encodeCursor(last.sort_value, last.id) : null };
}

/** True when the fact lies in one of the scopes. */
export function isVisible(fact: Pick<FactRecord, 'scope' | 'scopeKey'>, visible: ScopeRef[]): boolean {
  return visible.some((v) => v.scope === fact.scope && v.key === fact.scopeKey);
}

/** The visible scopes narrowed to one scope type (a team member sees two session scopes). */
export const narrowTo = (visible: ScopeRef[], scope: Scope | undefined): ScopeRef[] =>
  scope ? visible.filter((v) => v.scope === scope) : visible;
