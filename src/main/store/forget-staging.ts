import type { Db } from './db';
import { jsonRows } from './prepared';
import { evidenceSessionRef, existingEvidenceSessionRef } from './evidence-sessions';
import type { Scope } from '../../shared/domain';

/**
 * The SQL of forgetting a session, staged in temp tables inside the caller's transaction: which
 * sessions go (the session, its team members and side chats), and per fact they support how many
 * supporting sessions survive. A report reads the stage; applying it deletes and recomputes.
 */
export interface ForgottenFact {
  id: string;
  text: string;
  scope: Scope;
  scopeKey: string;
}

export interface KeptFact extends ForgottenFact {
  /** Sessions outside the forgotten set that still support the fact (at most five listed). */
  supportedBy: string[];
  reinforcementAfter: number;
  /** The forgotten team member's evidence passes to its lead, which had none of its own. */
  handedToLead: boolean;
}

/**
 * Fills temp tables with the forgotten sessions and, per fact they support, how many supporting
 * sessions survive (evidence outside the closure, plus the lead when it takes the evidence over).
 */
export function stageForget(db: Db, closure: string[], lead: string | null): void {
  db.exec('CREATE TEMP TABLE IF NOT EXISTS forget_sessions (id TEXT PRIMARY KEY)');
  db.exec('CREATE TEMP TABLE IF NOT EXISTS forget_refs (ref INTEGER PRIMARY KEY)');
  db.exec(`CREATE TEMP TABLE IF NOT EXISTS forget_fact_seqs (
    seq INTEGER PRIMARY KEY, survivors INTEGER NOT NULL, handed INTEGER NOT NULL DEFAULT 0)`);
  clearStaged(db);
  const addSession = db.prepare('INSERT INTO forget_sessions (id) VALUES (?)');
  for (const id of closure) addSession.run(id);
  // Evidence names its session by ref: reading the rows by ref uses their session index, where
  // the memory_fact_evidence view (which joins the refs' session ids) read every row.
  db.exec(`INSERT INTO forget_refs (ref)
    SELECT ref FROM memory_evidence_sessions WHERE session_id IN (SELECT id FROM forget_sessions)`);
  const leadRef = lead === null ? null : (existingEvidenceSessionRef(db, lead) ?? null);
  db.prepare(
    `INSERT INTO forget_fact_seqs (seq, survivors, handed)
     SELECT seq, outside + handed, handed FROM (
       SELECT e.fact_seq AS seq,
              (SELECT count(*) FROM memory_fact_evidence_rows o WHERE o.fact_seq = e.fact_seq) - count(*) AS outside,
              (@hasLead AND NOT EXISTS (
                 SELECT 1 FROM memory_fact_evidence_rows l WHERE l.fact_seq = e.fact_seq AND l.session_ref = @leadRef)) AS handed
       FROM memory_fact_evidence_rows e WHERE e.session_ref IN (SELECT ref FROM forget_refs)
       GROUP BY e.fact_seq)`,
  ).run({ hasLead: lead === null ? 0 : 1, leadRef });
}

/**
 * The persisted recall blocks holding any fact the staged sessions support (deleted or kept), read
 * by joining the stage rather than passing its thousands of seqs back in.
 */
export function stagedRecallRows(db: Db): { id: string; content: string }[] {
  return db
    .prepare(
      `SELECT DISTINCT m.id, m.content FROM forget_fact_seqs t
       JOIN recall_row_facts r ON r.fact_seq = t.seq JOIN session_messages m ON m.id = r.message_id`,
    )
    .all() as { id: string; content: string }[];
}

export function clearStaged(db: Db): void {
  db.exec('DELETE FROM forget_sessions; DELETE FROM forget_refs; DELETE FROM forget_fact_seqs;');
}

export interface StagedForget {
  deleted: ForgottenFact[];
  kept: KeptFact[];
  evidenceRemoved: number;
  messagesRemoved: number;
}

/** What the stage would do: facts deleted, facts kept (with who still supports them), rows removed. */
export function reportStaged(db: Db, lead: string | null): StagedForget {
  // A forgotten session can take thousands of facts with it: read as one JSON text (see jsonRows).
  const deleted = jsonRows<[number, string, string, Scope, string]>(
    db,
    't.seq, f.id, f.text, f.scope, f.scope_key',
    'FROM forget_fact_seqs t JOIN memory_facts f ON f.seq = t.seq WHERE t.survivors = 0',
  )
    .sort((a, b) => a[0] - b[0])
    .map(([, id, text, scope, scopeKey]): ForgottenFact => ({ id, text, scope, scopeKey }));
  const keptRows = db
    .prepare(
      `SELECT f.seq, f.id, f.text, f.scope, f.scope_key AS scopeKey, t.survivors AS reinforcementAfter, t.handed
       FROM forget_fact_seqs t JOIN memory_facts f ON f.seq = t.seq WHERE t.survivors > 0 ORDER BY t.seq`,
    )
    .all() as (Omit<KeptFact, 'supportedBy' | 'handedToLead'> & { seq: number; handed: number })[];
  const supporters = supportersOutside(db);
  const kept: KeptFact[] = keptRows.map(({ seq, handed, ...k }) => ({
    ...k,
    supportedBy: [...(handed && lead ? [lead] : []), ...(supporters.get(seq) ?? [])].slice(0, 5),
    handedToLead: handed === 1,
  }));
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    deleted,
    kept,
    evidenceRemoved: count(
      'SELECT count(*) AS n FROM memory_fact_evidence_rows WHERE session_ref IN (SELECT ref FROM forget_refs)',
    ),
    messagesRemoved: count(
      'SELECT count(*) AS n FROM session_messages WHERE session_id IN (SELECT id FROM forget_sessions)',
    ),
  };
}

/**
 * Up to five surviving supporters per kept fact, oldest evidence first. CROSS JOIN keeps the stage
 * the outer loop: the temp table has no statistics, and the planner otherwise read every evidence
 * row of the store.
 */
function supportersOutside(db: Db): Map<number, string[]> {
  const supportersOf = new Map<number, string[]>();
  for (const r of db
    .prepare(
      `SELECT fact_seq, session_id FROM (
         SELECT e.fact_seq, s.session_id,
                row_number() OVER (PARTITION BY e.fact_seq ORDER BY e.created_at, s.session_id) AS n
         FROM forget_fact_seqs t
         CROSS JOIN memory_fact_evidence_rows e ON e.fact_seq = t.seq
         JOIN memory_evidence_sessions s ON s.ref = e.session_ref
         WHERE t.survivors > 0 AND e.session_ref NOT IN (SELECT ref FROM forget_refs))
       WHERE n <= 5`,
    )
    .all() as { fact_seq: number; session_id: string }[]) {
    const list = supportersOf.get(r.fact_seq);
    if (list) list.push(r.session_id);
    else supportersOf.set(r.fact_seq, [r.session_id]);
  }
  return supportersOf;
}

export function applyStaged(db: Db, lead: string | null): void {
  if (lead) {
    // The lead's team keeps what it learned: it takes over the evidence (the message is forgotten).
    db.prepare(
      `INSERT INTO memory_fact_evidence_rows (fact_seq, session_ref, message_id, created_at, last_seen_at)
       SELECT t.seq, @leadRef, NULL,
              (SELECT min(e.created_at) FROM memory_fact_evidence_rows e
                WHERE e.fact_seq = t.seq AND e.session_ref IN (SELECT ref FROM forget_refs)),
              (SELECT max(e.last_seen_at) FROM memory_fact_evidence_rows e
                WHERE e.fact_seq = t.seq AND e.session_ref IN (SELECT ref FROM forget_refs))
       FROM forget_fact_seqs t WHERE t.handed = 1`,
    ).run({ leadRef: evidenceSessionRef(db, lead) });
    // The lead's source page cites the member's messages: Dream rewrites it on its next run.
    db.prepare('UPDATE dream_log SET evidence_at = NULL WHERE session_id = ?').run(lead);
  }
  db.exec(`
    DELETE FROM memory_fact_evidence_rows WHERE session_ref IN (SELECT ref FROM forget_refs);
    DELETE FROM memory_evidence_sessions WHERE session_id IN (SELECT id FROM forget_sessions);
    DELETE FROM memory_fact_rows WHERE seq IN (SELECT seq FROM forget_fact_seqs WHERE survivors = 0);
    UPDATE memory_fact_rows SET reinforcement = (SELECT survivors FROM forget_fact_seqs t WHERE t.seq = memory_fact_rows.seq)
      WHERE seq IN (SELECT seq FROM forget_fact_seqs WHERE survivors > 0);
    DELETE FROM dream_log WHERE session_id IN (SELECT id FROM forget_sessions);
    DELETE FROM session_messages WHERE session_id IN (SELECT id FROM forget_sessions);
    DELETE FROM sessions WHERE id IN (SELECT id FROM forget_sessions);
  `);
}

/** How many sessions a fact's evidence names; 0 when the fact does not exist. */
export function factEvidenceCount(db: Db, factId: string): number {
  const row = db
    .prepare(
      'SELECT count(*) AS n FROM memory_fact_evidence WHERE fact_seq = (SELECT seq FROM memory_facts WHERE id = ?)',
    )
    .get(factId) as { n: number };
  return row.n;
}

export function factSeqOf(db: Db, factId: string): number | undefined {
  return (db.prepare('SELECT seq FROM memory_facts WHERE id = ?').get(factId) as { seq: number } | undefined)?.seq;
}

/** Deletes one fact row; rows referencing it follow the schema's ON DELETE rules and triggers. */
export function deleteFact(db: Db, factId: string): void {
  db.prepare('DELETE FROM memory_fact_rows WHERE id = ?').run(factId);
}
