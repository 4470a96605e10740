/**
 * The database at rest: file sizes and what each b-tree weighs (SQLite's dbstat table), grouped
 * as tables, their indexes and the FTS5 indexes' shadow tables.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

export function footprint(home: string, facts: number): void {
  const size = (f: string) => statSync(path.join(home, f), { throwIfNoEntry: false })?.size ?? 0;
  const total = size('memory.db');
  console.log(
    `\ndatabase at rest, ${facts.toLocaleString('en-US')} facts: memory.db ${mb(total)} MB, -wal ${mb(size('memory.db-wal'))} MB` +
      `  target < 40 MB: ${total < 40 * 2 ** 20 ? 'met' : 'NOT MET'}`,
  );
  const db = new Database(path.join(home, 'memory.db'), { readonly: true });
  const rows = db
    .prepare(
      `SELECT d.name AS name, m.type AS type, m.tbl_name AS tbl, sum(d.pgsize) AS bytes, sum(d.unused) AS unused
       FROM dbstat d LEFT JOIN sqlite_master m ON m.name = d.name
       GROUP BY d.name ORDER BY bytes DESC`,
    )
    .all() as { name: string; type: string | null; tbl: string | null; bytes: number; unused: number }[];
  const free =
    (db.pragma('freelist_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
  db.close();
  for (const r of rows.filter((r) => r.bytes >= 256 * 1024)) {
    const what =
      r.type === 'index' ? `index on ${r.tbl}` : r.name.includes('_fts_') ? 'FTS5 shadow table' : (r.type ?? '');
    console.log(
      `  ${r.name.padEnd(44)} ${mb(r.bytes).padStart(6)} MB  ${what}${r.unused > r.bytes / 4 ? ` (${mb(r.unused)} MB unused)` : ''}`,
    );
  }
  const small = rows.filter((r) => r.bytes < 256 * 1024).reduce((n, r) => n + r.bytes, 0);
  console.log(`  ${'everything else'.padEnd(44)} ${mb(small).padStart(6)} MB;  free pages ${mb(free)} MB`);
}
