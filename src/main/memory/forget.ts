import type { Db } from '../store/db';
import { writeTx } from '../store/db';
import { getSession, sessionClosure } from '../store/sessions';
import { getFact } from '../store/facts';
import { queueForgetFollowUps } from '../store/forget-follow-ups';
import { recallRowsOf, rewriteRecallRow } from '../store/recall-rows';
import { forgetInBlock } from './recall/block';
import { notFound } from '../../shared/errors';
import type { Scope } from '../../shared/domain';
import { ownerOf } from './scope';

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

export interface SessionForgetReport {
  dryRun: boolean;
  /** The session and its team members and side chats, which go with it. */
  sessionIds: string[];
  deleted: ForgottenFact[];
  kept: KeptFact[];
  evidenceRemoved: number;
  messagesRemoved: number;
}

export interface ForgetOptions {
  dryRun: boolean;
  /** When the forget happens (the engine's clock); stamps the follow-up queue. */
  now?: number;
}

/**
 * Forget a session: its episodic evidence goes first, then each fact no other session still
 * supports; facts another session supports survive with their reinforcement recomputed. Team
 * members and side chats of the session go with it.
 *
 * A team member's or side chat's evidence belongs to its lead's team context. Forgetting only
 * the member (not its lead) removes the member's transcript and evidence, and hands each fact it
 * supported to the lead (evidence without a message), so nothing stored for the lead's team is
 * silently lost; forgetting the lead forgets the whole team.
 *
 * One write transaction: a crash at any point leaves either everything or nothing forgotten. The
 * wiki clean-up and the disk scrub are queued in the same transaction (forget_follow_ups).
 */
export function forgetSession(db: Db, sessionId: string, opts: ForgetOptions): SessionForgetReport {
  const run = () => {
    const session = getSession(db, sessionId);
    if (!session) throw notFound('session', sessionId, 'sessionId');
    const closure = sessionClosure(db, sessionId);
    const owner = session.parentSessionId ? ownerOf(db, session).id : null;
    const lead = owner !== null && !closure.includes(owner) ? owner : null;
    stageForget(db, closure, lead);
    const report = reportStaged(db, opts.dryRun, closure, lead);
    if (!opts.dryRun) {
      const seqs = (db.prepare('SELECT seq FROM forget_fact_seqs').all() as { seq: number }[]).map((r) => r.seq);
      scrubRecallBlocks(db, seqs, new Set(report.deleted.map((f) => f.id)), new Set(closure));
      applyStaged(db, lead);
      queueForgetFollowUps(
        db,
        { sessionIds: closure, factIds: report.deleted.map((f) => f.id) },
        opts.now ?? Date.now(),
      );
    }
    db.exec('DELETE FROM forget_sessions; DELETE FROM forget_fact_seqs;');
    return report;
  };
  // A dry run still uses a transaction so its view is one consistent snapshot.
  return opts.dryRun ? db.transaction(run).deferred() : writeTx(db, run);
}

/**
 * Fills temp tables with the forgotten sessions and, per fact they support, how many supporting
 * sessions survive (evidence outside the closure, plus the lead when it takes the evidence over).
 */
function stageForget(db: Db, closure: string[], lead: string | null): void {
  db.exec('CREATE TEMP TABLE IF NOT EXISTS forget_sessions (id TEXT PRIMARY KEY)');
  db.exec(`CREATE TEMP TABLE IF NOT EXISTS forget_fact_seqs (
    seq INTEGER PRIMARY KEY, survivors INTEGER NOT NULL, handed INTEGER NOT NULL DEFAULT 0)`);
  db.exec('DELETE FROM forget_sessions; DELETE FROM forget_fact_seqs;');
  const addSession = db.prepare('INSERT INTO forget_sessions (id) VALUES (?)');
  for (const id of closure) addSession.run(id);
  db.prepare(
    `INSERT INTO forget_fact_seqs (seq, survivors, handed)
     SELECT seq, outside + handed, handed FROM (
       SELECT e.fact_seq AS seq,
              (SELECT count(*) FROM memory_fact_evidence o WHERE o.fact_seq = e.fact_seq) - count(*) AS outside,
              (@lead IS NOT NULL AND NOT EXISTS (
                 SELECT 1 FROM memory_fact_evidence l WHERE l.fact_seq = e.fact_seq AND l.session_id = @lead)) AS handed
       FROM memory_fact_evidence e WHERE e.session_id IN (SELECT id FROM forget_sessions)
       GROUP BY e.fact_seq)`,
  ).run({ lead });
}

function reportStaged(db: Db, dryRun: boolean, closure: string[], lead: string | null): SessionForgetReport {
  const deleted = db
    .prepare(
      `SELECT f.id, f.text, f.scope, f.scope_key AS scopeKey FROM forget_fact_seqs t JOIN memory_facts f ON f.seq = t.seq
       WHERE t.survivors = 0 ORDER BY t.seq`,
    )
    .all() as ForgottenFact[];
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
    dryRun,
    sessionIds: closure,
    deleted,
    kept,
    evidenceRemoved: count(
      'SELECT count(*) AS n FROM memory_fact_evidence WHERE session_id IN (SELECT id FROM forget_sessions)',
    ),
    messagesRemoved: count(
      'SELECT count(*) AS n FROM session_messages WHERE session_id IN (SELECT id FROM forget_sessions)',
    ),
  };
}

/** Up to five surviving supporters per kept fact, oldest evidence first. */
function supportersOutside(db: Db): Map<number, string[]> {
  const supportersOf = new Map<number, string[]>();
  for (const r of db
    .prepare(
      `SELECT fact_seq, session_id FROM (
         SELECT e.fact_seq, e.session_id,
                row_number() OVER (PARTITION BY e.fact_seq ORDER BY e.created_at, e.session_id) AS n
         FROM forget_fact_seqs t JOIN memory_fact_evidence e ON e.fact_seq = t.seq
         WHERE t.survivors > 0 AND e.session_id NOT IN (SELECT id FROM forget_sessions))
       WHERE n <= 5`,
    )
    .all() as { fact_seq: number; session_id: string }[]) {
    const list = supportersOf.get(r.fact_seq);
    if (list) list.push(r.session_id);
    else supportersOf.set(r.fact_seq, [r.session_id]);
  }
  return supportersOf;
}

function applyStaged(db: Db, lead: string | null): void {
  if (lead) {
    // The lead's team keeps what it learned: it takes over the evidence (the message is forgotten).
    db.prepare(
      `INSERT INTO memory_fact_evidence (fact_seq, session_id, message_id, created_at, last_seen_at)
       SELECT t.seq, @lead, NULL,
              (SELECT min(e.created_at) FROM memory_fact_evidence e
                WHERE e.fact_seq = t.seq AND e.session_id IN (SELECT id FROM forget_sessions)),
              (SELECT max(e.last_seen_at) FROM memory_fact_evidence e
                WHERE e.fact_seq = t.seq AND e.session_id IN (SELECT id FROM forget_sessions))
       FROM forget_fact_seqs t WHERE t.handed = 1`,
    ).run({ lead });
    // The lead's source page cites the member's messages: Dream rewrites it on its next run.
    db.prepare('UPDATE dream_log SET evidence_at = NULL WHERE session_id = ?').run(lead);
  }
  db.exec(`
    DELETE FROM memory_fact_evidence WHERE session_id IN (SELECT id FROM forget_sessions);
    DELETE FROM memory_facts WHERE seq IN (SELECT seq FROM forget_fact_seqs WHERE survivors = 0);
    UPDATE memory_facts SET reinforcement = (SELECT survivors FROM forget_fact_seqs t WHERE t.seq = memory_facts.seq)
      WHERE seq IN (SELECT seq FROM forget_fact_seqs WHERE survivors > 0);
    DELETE FROM dream_log WHERE session_id IN (SELECT id FROM forget_sessions);
    DELETE FROM session_messages WHERE session_id IN (SELECT id FROM forget_sessions);
    DELETE FROM sessions WHERE id IN (SELECT id FROM forget_sessions);
  `);
}

/**
 * Persisted recall blocks (in any session's transcript) are copies of the facts they recalled:
 * each block holding one of these facts loses the records of deleted facts and any citation of a
 * forgotten session; a block with no record left is removed. In the forget's transaction.
 */
function scrubRecallBlocks(
  db: Db,
  factSeqs: readonly number[],
  deletedFactIds: ReadonlySet<string>,
  forgottenSessions: ReadonlySet<string>,
): void {
  for (const row of recallRowsOf(db, factSeqs)) {
    const next = forgetInBlock(row.content, deletedFactIds, forgottenSessions);
    if (next !== row.content) rewriteRecallRow(db, row.id, next);
  }
}

export interface FactForgetReport {
  dryRun: boolean;
  fact: ForgottenFact;
  evidenceRemoved: number;
}

/** Forget one fact and all its evidence; its wiki clean-up and disk scrub are queued with it. */
export function forgetFact(db: Db, factId: string, opts: ForgetOptions): FactForgetReport {
  return writeTx(db, () => {
    const fact = getFact(db, factId);
    if (!fact) throw notFound('fact', factId, 'factId');
    const evidenceRemoved = (
      db
        .prepare(
          'SELECT count(*) AS n FROM memory_fact_evidence WHERE fact_seq = (SELECT seq FROM memory_facts WHERE id = ?)',
        )
        .get(factId) as { n: number }
    ).n;
    if (!opts.dryRun) {
      const seq = (db.prepare('SELECT seq FROM memory_facts WHERE id = ?').get(factId) as { seq: number }).seq;
      scrubRecallBlocks(db, [seq], new Set([factId]), new Set());
      db.prepare('DELETE FROM memory_facts WHERE id = ?').run(factId);
      queueForgetFollowUps(db, { sessionIds: [], factIds: [factId] }, opts.now ?? Date.now());
    }
    return {
      dryRun: opts.dryRun,
      fact: { id: fact.id, text: fact.text, scope: fact.scope, scopeKey: fact.scopeKey },
      evidenceRemoved,
    };
  });
}
