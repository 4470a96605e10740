import type { Db } from './db';
import { toFact, type FactRow } from './facts';
import { decodeFactCursor, encodeCursor, type FactPage, type FactSort } from './fact-queries';
import type { FactKind, Scope } from '../../shared/domain';
import type { FactRecord, ScopeRef } from '../../shared/schemas';

export interface VisibleFactFilter {
  kind?: FactKind;
  text?: string;
  sort: VisibleFactSort;
  cursor?: string;
  limit: number;
}

export type VisibleFactSort = Exclude<FactSort, 'confidence' | 'relevance'>;

/** Both orders are walked on an index per scope (memory_facts_scope_reinforcement, _scope_updated). */
const sortExpr: Record<VisibleFactSort, string> = {
  reinforcement: 'f.reinforcement',
  recency: 'f.updated_at',
};

/**
 * Facts inside the given scopes only. Each scope is one indexed query (scope and key are
 * equality constraints, so no other scope's fact can reach the page or the cursor); each
 * returns at most one page in sort order and the pages are merged, so the cost is a page per
 * visible scope however large the project is.
 */
export function listVisibleFacts(db: Db, visible: ScopeRef[], f: VisibleFactFilter): FactPage {
  const expr = sortExpr[f.sort];
  const where = ['f.scope_id = (SELECT id FROM memory_scopes WHERE scope = ? AND scope_key = ?)'];
  const filters: unknown[] = [];
  if (f.kind) {
    where.push('f.kind = ?');
    filters.push(f.kind);
  }
  if (f.text) {
    where.push("f.text LIKE ? ESCAPE '\\'");
    filters.push(`%${f.text.replace(/[\\%_]/g, (c) => '\\' + c)}%`);
  }
  const cursor = f.cursor ? decodeFactCursor(f.cursor) : null;
  if (cursor) {
    where.push(`(${expr}, f.seq) < (?, ?)`);
    filters.push(cursor[0], cursor[1]);
  }
  const statement = db.prepare(
    `SELECT f.*, ${expr} AS sort_value FROM memory_facts f WHERE ${where.join(' AND ')}
     ORDER BY ${expr} DESC, f.seq DESC LIMIT ?`,
  );
  const distinct = [...new Map(visible.map((v) => [`${v.scope}\u0000${v.key}`, v])).values()];
  const rows = distinct
    .flatMap((v) => statement.all(v.scope, v.key, ...filters, f.limit + 1) as (FactRow & { sort_value: number })[])
    .sort((a, b) => b.sort_value - a.sort_value || b.seq - a.seq);
  const more = rows.length > f.limit;
  const page = rows.slice(0, f.limit);
  const last = page[page.length - 1];
  return { facts: page.map(toFact), nextCursor: more && last ? encodeCursor(last.sort_value, last.seq) : null };
}

/** True when the fact lies in one of the scopes. */
export function isVisible(fact: Pick<FactRecord, 'scope' | 'scopeKey'>, visible: ScopeRef[]): boolean {
  return visible.some((v) => v.scope === fact.scope && v.key === fact.scopeKey);
}

/** The visible scopes narrowed to one scope type (a team member sees two session scopes). */
export const narrowTo = (visible: ScopeRef[], scope: Scope | undefined): ScopeRef[] =>
  scope ? visible.filter((v) => v.scope === scope) : visible;
