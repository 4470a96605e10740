import type { Db } from './db';
import type { FactKind, FactRecallMode, Scope } from '../../shared/domain';

const DAY_MS = 86_400_000;

export interface DayWindow {
  /** The first local day counted (a day number: floor((utc ms + offset) / 1 day)). */
  firstDay: number;
  days: number;
  offsetMs: number;
}

/** Local day numbers of the last `days` days, ending today, for a UTC offset in minutes. */
export function dayWindow(now: number, days: number, utcOffsetMinutes: number): DayWindow {
  const offsetMs = utcOffsetMinutes * 60_000;
  const today = Math.floor((now + offsetMs) / DAY_MS);
  return { firstDay: today - days + 1, days, offsetMs };
}

export const dayLabel = (dayNumber: number): string => new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);

/** Rows counted per local day of `column` since the window's first day. */
function perDay(db: Db, table: string, column: string, w: DayWindow, where = ''): Map<number, number> {
  const since = w.firstDay * DAY_MS - w.offsetMs;
  const rows = db
    .prepare(
      `SELECT CAST((${column} + @offset) / ${DAY_MS} AS INTEGER) AS d, count(*) AS n FROM ${table}
       WHERE ${column} >= @since ${where} GROUP BY d`,
    )
    .all({ offset: w.offsetMs, since }) as { d: number; n: number }[];
  return new Map(rows.map((r) => [r.d, r.n]));
}

export function totals(db: Db) {
  const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    facts: n('SELECT COALESCE(sum(facts), 0) AS n FROM memory_scopes'),
    evidence: n('SELECT count(*) AS n FROM memory_fact_evidence_rows'),
    sessions: n('SELECT count(*) AS n FROM sessions'),
    messages: n('SELECT count(*) AS n FROM session_messages'),
  };
}

export function factsByScope(db: Db): { scope: Scope; facts: number; contexts: number }[] {
  return db
    .prepare('SELECT scope, sum(facts) AS facts, count(*) AS contexts FROM memory_scopes GROUP BY scope ORDER BY scope')
    .all() as { scope: Scope; facts: number; contexts: number }[];
}

export function factsByKind(db: Db): { kind: FactKind; facts: number }[] {
  return db.prepare('SELECT kind, count(*) AS facts FROM memory_facts GROUP BY kind ORDER BY facts DESC').all() as {
    kind: FactKind;
    facts: number;
  }[];
}

/** Pinned and paused counts come from their partial index; normal is the rest. */
export function factsByRecall(db: Db, total: number): { recall: FactRecallMode; facts: number }[] {
  const rows = db
    .prepare("SELECT recall, count(*) AS facts FROM memory_fact_rows WHERE recall != 'normal' GROUP BY recall")
    .all() as { recall: FactRecallMode; facts: number }[];
  const pinned = rows.find((r) => r.recall === 'pinned')?.facts ?? 0;
  const paused = rows.find((r) => r.recall === 'paused')?.facts ?? 0;
  return [
    { recall: 'normal', facts: Math.max(0, total - pinned - paused) },
    { recall: 'pinned', facts: pinned },
    { recall: 'paused', facts: paused },
  ];
}

export function growth(db: Db, w: DayWindow) {
  // The tables behind the memory_facts and memory_fact_evidence views: counting needs no join.
  const facts = perDay(db, 'memory_fact_rows', 'first_seen_at', w);
  const evidence = perDay(db, 'memory_fact_evidence_rows', 'created_at', w);
  const sessions = perDay(db, 'sessions', 'created_at', w);
  let running = (
    db
      .prepare('SELECT count(*) AS n FROM memory_fact_rows WHERE first_seen_at < ?')
      .get(w.firstDay * DAY_MS - w.offsetMs) as { n: number }
  ).n;
  return Array.from({ length: w.days }, (_, i) => {
    const d = w.firstDay + i;
    running += facts.get(d) ?? 0;
    return {
      day: dayLabel(d),
      facts: facts.get(d) ?? 0,
      evidence: evidence.get(d) ?? 0,
      sessions: sessions.get(d) ?? 0,
      factsTotal: running,
    };
  });
}

export function extractionRuns(db: Db, w: DayWindow) {
  const since = w.firstDay * DAY_MS - w.offsetMs;
  const rows = db
    .prepare(
      `SELECT CAST((finished_at + @offset) / ${DAY_MS} AS INTEGER) AS d, count(*) AS runs,
              sum(outcome = 'failed') AS failed, sum(facts_stored) AS stored
       FROM memory_extraction_runs WHERE finished_at >= @since GROUP BY d`,
    )
    .all({ offset: w.offsetMs, since }) as { d: number; runs: number; failed: number; stored: number }[];
  const byDay = new Map(rows.map((r) => [r.d, r]));
  const failingNow = (
    db.prepare("SELECT count(*) AS n FROM memory_extraction_states WHERE status = 'failed'").get() as { n: number }
  ).n;
  return {
    days: Array.from({ length: w.days }, (_, i) => {
      const r = byDay.get(w.firstDay + i);
      return { day: dayLabel(w.firstDay + i), runs: r?.runs ?? 0, failed: r?.failed ?? 0, factsStored: r?.stored ?? 0 };
    }),
    failingNow,
  };
}
