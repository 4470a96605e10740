import type { Db } from '../store/db';
import { writeTx } from '../store/db';
import { getSession, sessionClosure } from '../store/sessions';
import { getFact } from '../store/facts';
import { notFound } from '../../shared/errors';
import type { Scope } from '../../shared/domain';

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

/**
 * Forget a session: its episodic evidence goes first, then each fact no other session still
 * supports; facts another session supports survive with their reinforcement recomputed. Team
 * members and side chats of the session go with it. One write transaction: a crash at any
 * point leaves either everything or nothing forgotten.
 */
export function forgetSession(db: Db, sessionId: string, opts: { dryRun: boolean }): SessionForgetReport {
  const run = () => {
    if (!getSession(db, sessionId)) throw notFound('session', sessionId, 'sessionId');
    const closure = sessionClosure(db, sessionId);
    db.exec('CREATE TEMP TABLE IF NOT EXISTS forget_sessions (id TEXT PRIMARY KEY)');
    db.exec('CREATE TEMP TABLE IF NOT EXISTS forget_fact_seqs (seq INTEGER PRIMARY KEY, survivors INTEGER NOT NULL)');
    db.exec('DELETE FROM forget_sessions; DELETE FROM forget_fact_seqs;');
    const addSession = db.prepare('INSERT INTO forget_sessions (id) VALUES (?)');
    for (const id of closure) addSession.run(id);
    // Survivors = all of a fact's evidence minus the forgotten sessions' share of it.
    db.exec(`INSERT INTO forget_fact_seqs (seq, survivors)
      SELECT e.fact_seq, (SELECT count(*) FROM memory_fact_evidence o WHERE o.fact_seq = e.fact_seq) - count(*)
      FROM memory_fact_evidence e WHERE e.session_id IN (SELECT id FROM forget_sessions)
      GROUP BY e.fact_seq`);

    const deleted = db
      .prepare(
        `SELECT f.id, f.text, f.scope, f.scope_key AS scopeKey FROM forget_fact_seqs t JOIN memory_facts f ON f.seq = t.seq
         WHERE t.survivors = 0 ORDER BY t.seq`,
      )
      .all() as ForgottenFact[];
    const keptRows = db
      .prepare(
        `SELECT f.seq, f.id, f.text, f.scope, f.scope_key AS scopeKey, t.survivors AS reinforcementAfter
         FROM forget_fact_seqs t JOIN memory_facts f ON f.seq = t.seq WHERE t.survivors > 0 ORDER BY t.seq`,
      )
      .all() as (Omit<KeptFact, 'supportedBy'> & { seq: number })[];
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
    const kept: KeptFact[] = keptRows.map(({ seq, ...k }) => ({ ...k, supportedBy: supportersOf.get(seq) ?? [] }));
    const evidenceRemoved = (
      db
        .prepare('SELECT count(*) AS n FROM memory_fact_evidence WHERE session_id IN (SELECT id FROM forget_sessions)')
        .get() as { n: number }
    ).n;
    const messagesRemoved = (
      db
        .prepare('SELECT count(*) AS n FROM session_messages WHERE session_id IN (SELECT id FROM forget_sessions)')
        .get() as { n: number }
    ).n;

    if (!opts.dryRun) {
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
    db.exec('DELETE FROM forget_sessions; DELETE FROM forget_fact_seqs;');
    return { dryRun: opts.dryRun, sessionIds: closure, deleted, kept, evidenceRemoved, messagesRemoved };
  };
  // A dry run still uses a transaction so its view is one consistent snapshot.
  return opts.dryRun ? db.transaction(run).deferred() : writeTx(db, run);
}

export interface FactForgetReport {
  dryRun: boolean;
  fact: ForgottenFact;
  evidenceRemoved: number;
}

/** Forget one fact and all its evidence. */
export function forgetFact(db: Db, factId: string, opts: { dryRun: boolean }): FactForgetReport {
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
    if (!opts.dryRun) db.prepare('DELETE FROM memory_facts WHERE id = ?').run(factId);
    return {
      dryRun: opts.dryRun,
      fact: { id: fact.id, text: fact.text, scope: fact.scope, scopeKey: fact.scopeKey },
      evidenceRemoved,
    };
  });
}
