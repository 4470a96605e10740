/**
 * The baseline: the same facts in a plain FTS5 table with a scope column, queried in-process on
 * this thread. `scope:(the session's scopes) AND text:(the query's words)`, ranked by FTS5's own
 * bm25 and the top 8 read with their text: what a search costs when it costs only the index.
 * The floor beside it skips the ranking (the 8 newest matches), which no useful search can beat.
 */
import path from 'node:path';
import Database from 'better-sqlite3';

export interface Baseline {
  /** Thread CPU (ms) of one ranked search; `hits` is how many it returned. */
  ranked(query: string): { cpuMs: number; wallMs: number; hits: number };
  /** Thread CPU (ms) of the unranked floor. */
  newest(query: string): { cpuMs: number; wallMs: number; hits: number };
  close(): void;
}

const tag = (scope: string, key: string) => 's' + Buffer.from(`${scope}:${key}`, 'utf8').toString('hex');
const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;
/**
 * This process's CPU (getrusage: exact for the running thread, unlike /proc/thread-self/schedstat,
 * which is brought up to date only at scheduler ticks and reads 0 for most sub-millisecond
 * queries). The bench's other threads are idle while the baseline runs.
 */
const threadCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Builds the baseline from the facts in `memoryDb`, for a session seeing `scopes`. */
export function buildBaseline(
  memoryDb: string,
  dir: string,
  scopes: readonly { scope: string; key: string }[],
): Baseline {
  const file = path.join(dir, `baseline-${Date.now()}.db`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE VIRTUAL TABLE facts USING fts5(scope, text)');
  const source = new Database(memoryDb, { readonly: true });
  const insert = db.prepare('INSERT INTO facts (rowid, scope, text) VALUES (?, ?, ?)');
  const rows = source
    .prepare('SELECT seq, scope, scope_key, text FROM memory_facts ORDER BY seq')
    .iterate() as Iterable<{
    seq: number;
    scope: string;
    scope_key: string;
    text: string;
  }>;
  db.transaction(() => {
    for (const r of rows) insert.run(r.seq, tag(r.scope, r.scope_key), r.text);
  })();
  source.close();
  db.exec("INSERT INTO facts(facts) VALUES('optimize')");
  const scopeExpr = `scope : (${scopes.map((s) => quote(tag(s.scope, s.key))).join(' OR ')})`;
  const match = (query: string) => {
    const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
    return `${scopeExpr} AND text : (${words.map(quote).join(' OR ')})`;
  };
  const rankedStmt = db.prepare('SELECT rowid, text FROM facts WHERE facts MATCH ? ORDER BY rank LIMIT 8');
  const newestStmt = db.prepare('SELECT rowid, text FROM facts WHERE facts MATCH ? ORDER BY rowid DESC LIMIT 8');
  const timed = (stmt: Database.Statement) => (query: string) => {
    const c = threadCpuMs();
    const t = performance.now();
    const hits = stmt.all(match(query)).length;
    return { wallMs: performance.now() - t, cpuMs: threadCpuMs() - c, hits };
  };
  return {
    ranked: timed(rankedStmt),
    newest: timed(newestStmt),
    close: () => db.close(),
  };
}
