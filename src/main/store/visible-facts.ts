import type { Db } from './db';
import { toFact } from './facts';
import { decodeFactCursor, encodeCursor, withFactRows, type FactPage, type FactSort } from './fact-queries';
import { kindCode } from './fact-codes';
import { scopeColumn, totalFacts, walkSortIndex } from './fact-order';
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

/**
 * Both orders have a store-wide index (memory_facts_reinforcement, memory_facts_updated) on
 * memory_fact_rows, where pages are chosen; only the page's rows are read through the view.
 */
const sortExpr: Record<VisibleFactSort, string> = {
  reinforcement: 'f.reinforcement',
  recency: 'f.updated_at',
};

/**
 * Facts inside the given scopes only. Each scope is one query (scope_id is an equality, so no
 * other scope's fact can reach the page or the cursor) returning at most one page in sort order,
 * read the cheaper way for the scope's size (fact-order.ts); the pages are merged, so the cost
 * is bounded per visible scope however large the project is.
 */
export function listVisibleFacts(db: Db, visible: ScopeRef[], f: VisibleFactFilter): FactPage {
  const expr = sortExpr[f.sort];
  const where: string[] = [];
  const filters: unknown[] = [];
  if (f.kind) {
    where.push('f.kind = ?');
    filters.push(kindCode(f.kind));
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
  const prepare = (walk: boolean) =>
    db.prepare(
      `SELECT f.seq, ${expr} AS sort_value FROM memory_fact_rows f
       WHERE ${[`${scopeColumn(walk)} = ?`, ...where].join(' AND ')}
       ORDER BY ${expr} DESC, f.seq DESC LIMIT ?`,
    );
  const statements = { walk: prepare(true), sort: prepare(false) };
  const scopeRow = db.prepare('SELECT id, facts FROM memory_scopes WHERE scope = ? AND scope_key = ?');
  const total = totalFacts(db);
  const distinct = [...new Map(visible.map((v) => [`${v.scope}\u0000${v.key}`, v])).values()];
  const seqs = distinct
    .flatMap((v) => {
      const s = scopeRow.get(v.scope, v.key) as { id: number; facts: number } | undefined;
      if (!s) return [];
      const read = walkSortIndex(s.facts, total, f.limit + 1) ? statements.walk : statements.sort;
      return read.all(s.id, ...filters, f.limit + 1) as { seq: number; sort_value: number }[];
    })
    .sort((a, b) => b.sort_value - a.sort_value || b.seq - a.seq);
  const more = seqs.length > f.limit;
  const page = withFactRows(db, seqs.slice(0, f.limit));
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
