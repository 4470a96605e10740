import type { Db } from './db';
import { prepared, preparedPluck } from './prepared';

/**
 * The fact index's vocabulary, read through an fts5vocab table: the index's own term list, so no
 * copy of any word is kept (a forgotten fact's words leave it with the index rows). The table is
 * created in each connection's temp schema, which a read-only connection may write, so no
 * migration adds it and nothing of it reaches the database file. fts5vocab reads the index only when
 * queried, so a connection may add it before the index exists.
 */
const readersWithVocabulary = new WeakSet<Db>();

/**
 * Adds the vocabulary to a connection: a read-only one once, before it is made query-only; the
 * writer each time it is asked (a no-op once there), since a temp table created inside a write
 * transaction that then rolled back would be gone.
 */
export function addFactVocabulary(db: Db): void {
  if (readersWithVocabulary.has(db)) return;
  db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_facts_vocab USING fts5vocab(main, memory_facts_fts, row)');
  if (db.readonly) readersWithVocabulary.add(db);
}

/** Index terms read at most per prefix: other scopes' words share the range and are skipped. */
const RANGE_LIMIT = 2_000;

/**
 * The folded words in these scopes that begin with `prefix` and are longer than it, with the
 * facts holding each (summed over the scopes), most facts first. The index's tokens are
 * `word_scope` (see text/fact-index.ts), so one range of the term list holds every scope's words
 * with that prefix; the scope part of each is matched against the caller's.
 */
export function wordsStartingWith(
  db: Db,
  prefix: string,
  scopeIds: readonly number[],
): { word: string; facts: number }[] {
  addFactVocabulary(db);
  const scopes = new Set(scopeIds.map((id) => id.toString(36)));
  const rows = prepared(
    db,
    `SELECT term, doc FROM temp.memory_facts_vocab WHERE term > ? AND term < ? LIMIT ${RANGE_LIMIT}`,
  ).all(prefix, `${prefix}\u{10FFFF}`) as { term: string; doc: number }[];
  const facts = new Map<string, number>();
  for (const { term, doc } of rows) {
    const cut = term.lastIndexOf('_');
    if (cut <= prefix.length || !scopes.has(term.slice(cut + 1))) continue;
    const word = term.slice(0, cut);
    facts.set(word, (facts.get(word) ?? 0) + doc);
  }
  return [...facts]
    .map(([word, n]) => ({ word, facts: n }))
    .sort((a, b) => b.facts - a.facts || a.word.length - b.word.length || (a.word < b.word ? -1 : 1));
}

/**
 * Whether the fact index query `match` finds a fact that still stands and is not paused. The
 * vocabulary counts what the index holds, and a forgotten fact's index row stays until index
 * maintenance purges it, so a word is only used once a standing fact is found to hold it.
 */
export function findsStandingFact(db: Db, match: string): boolean {
  return (
    preparedPluck(
      db,
      // The index is the outer loop, so the first standing fact ends the read.
      `SELECT 1 FROM memory_facts_fts f CROSS JOIN memory_fact_rows r ON r.seq = f.rowid
         WHERE memory_facts_fts MATCH ? AND r.recall != 'paused' LIMIT 1`,
    ).get(match) !== undefined
  );
}
