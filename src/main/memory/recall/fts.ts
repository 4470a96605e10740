import type { Statement } from 'better-sqlite3';
import type { Db } from '../../store/db';
import { surfaceForms } from './tokenize';

/**
 * Candidate retrieval from a tagged FTS5 index (migrations 020 and 021): `tags` restricts the
 * rows to the caller's scopes inside the index, `terms` are normalized query terms expanded to
 * the raw surface forms the index holds. Every lookup walks newest first: the fact index's
 * rowids count up (a fact's seq, migration 050), the dialogue index's count down (migration 021).
 *
 *  1. One capped lookup per term, so a rare term's rows are never crowded out by a common
 *     term's. A term that returns fewer rows than the cap has returned all of its rows in these
 *     scopes, so every fact holding every term is already among them.
 *  2. When every term filled its cap (all are common here), the sparsest of them (the one whose
 *     cap reached furthest back) is read deeper, so facts holding all the terms are found among
 *     its newest `deepCap` rows without intersecting long posting lists inside FTS5 (an AND of
 *     common terms walks every row of the scopes: the slow path at 1M facts).
 *
 * The union is at most `perTermCap × terms + deepCap` rows, whatever the index size. A per-term
 * count below its cap is that term's exact document frequency within the scopes.
 */
export interface TaggedIndex {
  table: string;
  tagColumn: string;
  textColumn: string;
  /** The rowid order that lists the newest rows first. */
  newestFirst: 'ASC' | 'DESC';
}

export interface CandidateOptions {
  perTermCap: number;
  deepCap: number;
  /** The most distinctive (longest) terms used for retrieval; ranking still sees every term. */
  maxTerms: number;
}

export interface Candidates {
  rowids: number[];
  /** Term -> rows found for it (exact when below perTermCap). */
  termHits: Map<string, number>;
  perTermCap: number;
}

/** The token a scope is tagged with in the index: a prefix letter + hex of its UTF-8 bytes. */
export const scopeTag = (prefix: string, value: string): string => prefix + Buffer.from(value, 'utf8').toString('hex');

const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;

export function retrievalTerms(terms: readonly string[], max: number): string[] {
  return [...terms].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).slice(0, max);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyStatement = Statement<any[]>;
const statementCache = new WeakMap<Db, Map<string, AnyStatement>>();

/** A statement prepared once per connection: recall runs the same few shapes thousands of times. */
export function prepared(db: Db, sql: string): AnyStatement {
  let m = statementCache.get(db);
  if (!m) statementCache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql) as AnyStatement));
  return s;
}

export function findCandidates(
  db: Db,
  index: TaggedIndex,
  tags: readonly string[],
  terms: readonly string[],
  options: CandidateOptions,
): Candidates {
  const result: Candidates = { rowids: [], termHits: new Map(), perTermCap: options.perTermCap };
  const chosen = retrievalTerms(terms, options.maxTerms);
  if (tags.length === 0 || chosen.length === 0) return result;
  const tagExpr = `${index.tagColumn} : (${tags.map(quote).join(' OR ')})`;
  const groups = chosen.map((t) => `${index.textColumn} : (${surfaceForms(t).map(quote).join(' OR ')})`);
  const sql = (cap: number) =>
    `SELECT rowid FROM ${index.table} WHERE ${index.table} MATCH ? ORDER BY rowid ${index.newestFirst} LIMIT ${cap}`;
  const seen = new Set<number>();
  const add = (rows: { rowid: number }[]) => {
    for (const r of rows) if (!seen.has(r.rowid)) (seen.add(r.rowid), result.rowids.push(r.rowid));
  };
  let sparsest = -1;
  let reach = -Infinity;
  let allCapped = true;
  chosen.forEach((term, i) => {
    const rows = prepared(db, sql(options.perTermCap)).all(`${tagExpr} AND ${groups[i]}`) as { rowid: number }[];
    add(rows);
    result.termHits.set(term, rows.length);
    if (rows.length < options.perTermCap) allCapped = false;
    const last = rows.at(-1)?.rowid;
    // How far back in time this term's cap reached: the larger, the sparser the term here.
    const back = last === undefined ? -Infinity : index.newestFirst === 'ASC' ? last : -last;
    if (back > reach) ((reach = back), (sparsest = i));
  });
  if (allCapped && sparsest >= 0 && options.deepCap > options.perTermCap) {
    const deep = prepared(db, sql(options.deepCap)).all(`${tagExpr} AND ${groups[sparsest]}`) as { rowid: number }[];
    add(deep);
    result.termHits.set(chosen[sparsest]!, deep.length);
  }
  return result;
}
