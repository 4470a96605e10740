import type { Db } from '../../store/db';
import { preparedPluck } from '../../store/prepared';
import { surfaceForms } from '../../text/tokenize';

/**
 * Candidate retrieval from a tagged FTS5 index (migrations 020 and 021): `tags` restricts the
 * rows to the caller's scopes inside the index, `terms` are normalized query terms expanded to
 * the raw surface forms the index holds. Every lookup walks newest first: the fact index's
 * rowids count up (a fact's seq, migration 050), the dialogue index's count down (migration 021).
 *
 *  1. One capped lookup per term (at most `maxTerms` of them), so a rare term's rows are never
 *     crowded out by a common term's. A term that returns fewer rows than the cap has returned
 *     all of its rows in these scopes: its count is its exact document frequency there, read
 *     from the index at the price of at most `perTermCap` rowids.
 *  2. Rarest first: the rows join the candidates term by term in ascending document frequency,
 *     until `budget` rows are in. The rare words of a query (the ones that find the evidence)
 *     always bring all their rows; a common word fills what is left.
 *  3. When every term filled its cap (all are common here), the sparsest of them (the one whose
 *     cap reached furthest back) is read deeper, so texts holding all the terms are found among
 *     its newest `deepCap` rows without intersecting long posting lists inside FTS5 (an AND of
 *     common terms walks every row of the scopes: the slow path at 1M rows).
 *
 * The candidates are at most `budget + deepCap` rows, whatever the index size.
 */
export interface CandidateIndex {
  table: string;
  /** The rowid order that lists the newest rows first. */
  newestFirst: 'ASC' | 'DESC';
}

/** An index with a tag column (the caller's scopes) and a text column of raw words (the dialogue's). */
export interface TaggedIndex extends CandidateIndex {
  tagColumn: string;
  textColumn: string;
}

/** The FTS5 query of one term, or null when the term cannot match (nothing to look up). */
export type TermLookup = (term: string) => string | null;

/** `tags:(the caller's tags) AND text:(every surface form of the term)`. */
export function taggedLookup(index: TaggedIndex, tags: readonly string[]): TermLookup {
  if (tags.length === 0) return () => null;
  const tagExpr = `${index.tagColumn} : (${tags.map(quote).join(' OR ')})`;
  return (t) => `${tagExpr} AND ${index.textColumn} : (${surfaceForms(t).map(quote).join(' OR ')})`;
}

export interface CandidateOptions {
  perTermCap: number;
  deepCap: number;
  /** Terms looked up at most; a longer query keeps its longest words for the lookups. */
  maxTerms: number;
  /** Rows taken from the per-term lookups, rarest term first. */
  budget: number;
}

export interface Candidates {
  rowids: number[];
  /** Term -> rows found for it (its exact document frequency in the scopes when below perTermCap). */
  termHits: Map<string, number>;
  /** Term -> the rowids found for it, newest first. */
  termRows: Map<string, number[]>;
  /** The terms whose lookup returned every row they have in the scopes (it stopped below its cap). */
  complete: Set<string>;
  perTermCap: number;
}

const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;

/** The terms to look up: all of them, or for a very long query its `max` longest. */
export function lookupTerms(terms: readonly string[], max: number): string[] {
  if (terms.length <= max) return [...terms];
  return [...terms].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).slice(0, max);
}

type Lookup = { term: string; rows: number[]; reach: number };

/**
 * Up to `cap` rowids matching `match`, newest first; with `olderThan`, only rows past that one (a
 * deep read goes on from where a capped lookup stopped: FTS5 seeks to a rowid bound).
 */
function indexRows(db: Db, index: CandidateIndex, match: string, cap: number, olderThan?: number): number[] {
  const where = olderThan === undefined ? '' : `AND rowid ${index.newestFirst === 'DESC' ? '<' : '>'} ?`;
  const sql = `SELECT rowid FROM ${index.table} WHERE ${index.table} MATCH ? ${where}
     ORDER BY rowid ${index.newestFirst} LIMIT ${cap}`;
  const params = olderThan === undefined ? [match] : [match, olderThan];
  return preparedPluck(db, sql).all(...params) as number[];
}

export function findCandidates(
  db: Db,
  index: CandidateIndex,
  lookup: TermLookup,
  terms: readonly string[],
  options: CandidateOptions,
): Candidates {
  const result: Candidates = {
    rowids: [],
    termHits: new Map(),
    termRows: new Map(),
    complete: new Set(),
    perTermCap: options.perTermCap,
  };
  const chosen = lookupTerms(terms, options.maxTerms);
  const rowsOf = (term: string, cap: number): number[] => {
    const match = lookup(term);
    return match === null ? [] : indexRows(db, index, match, cap);
  };
  if (chosen.length === 0 || lookup(chosen[0]!) === null) return result;
  const lookups: Lookup[] = chosen.map((term) => {
    const rows = rowsOf(term, options.perTermCap);
    const last = rows.at(-1);
    // How far back in time this term's cap reached: the larger, the sparser the term here.
    const reach = last === undefined ? -Infinity : index.newestFirst === 'ASC' ? last : -last;
    return { term, rows, reach };
  });
  const seen = new Set<number>();
  const add = (rows: readonly number[], budget: number) => {
    for (const r of rows) {
      if (result.rowids.length >= budget) return;
      if (seen.has(r)) continue;
      seen.add(r);
      result.rowids.push(r);
    }
  };
  lookups.sort((a, b) => a.rows.length - b.rows.length || b.reach - a.reach || (a.term < b.term ? -1 : 1));
  for (const l of lookups) {
    result.termHits.set(l.term, l.rows.length);
    result.termRows.set(l.term, l.rows);
    if (l.rows.length < options.perTermCap) result.complete.add(l.term);
    add(l.rows, options.budget);
  }
  const sparsest = lookups[0]!;
  if (sparsest.rows.length >= options.perTermCap && options.deepCap > options.perTermCap) {
    const more = options.deepCap - sparsest.rows.length;
    const deep = [...sparsest.rows, ...indexRows(db, index, lookup(sparsest.term)!, more, sparsest.rows.at(-1))];
    add(deep, options.budget + options.deepCap);
    result.termHits.set(sparsest.term, deep.length);
    result.termRows.set(sparsest.term, deep);
    if (deep.length < options.deepCap) result.complete.add(sparsest.term);
  }
  return result;
}

/**
 * `more`'s candidates added to `into`'s (rows not already in, after them), with their terms'
 * counts and rows: the words a search added after its first lookups, without looking the first
 * ones up again.
 */
export function mergeCandidates(into: Candidates, more: Candidates): Candidates {
  const seen = new Set(into.rowids);
  return {
    rowids: [...into.rowids, ...more.rowids.filter((r) => !seen.has(r))],
    termHits: new Map([...into.termHits, ...more.termHits]),
    termRows: new Map([...into.termRows, ...more.termRows]),
    complete: new Set([...into.complete, ...more.complete]),
    perTermCap: into.perTermCap,
  };
}

/** One query matching what any of the queries matches (each lookup's query in parentheses). */
export const anyOf = (matches: readonly (string | null)[]): string | null => {
  const present = matches.filter((m): m is string => m !== null);
  return present.length ? present.map((m) => `(${m})`).join(' OR ') : null;
};
