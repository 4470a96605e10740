import type { Db } from '../store/db';
import { writeTx } from '../store/db';
import { getSession, sessionClosure } from '../store/sessions';
import { getFact } from '../store/facts';
import { queueForgetFollowUps } from '../store/forget-follow-ups';
import { recallRowsOf, rewriteRecallRow } from '../store/recall-rows';
import { forgetInBlock } from './recall/block';
import { notFound } from '../../shared/errors';
import { ownerOf } from './scope';
import {
  applyStaged,
  clearStaged,
  deleteFact,
  factEvidenceCount,
  factSeqOf,
  reportStaged,
  stagedRecallRows,
  stageForget,
  type ForgottenFact,
  type KeptFact,
} from '../store/forget-staging';

export type { ForgottenFact, KeptFact };

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
    const report: SessionForgetReport = { dryRun: opts.dryRun, sessionIds: closure, ...reportStaged(db, lead) };
    if (!opts.dryRun) {
      scrubRecallBlocks(db, stagedRecallRows(db), new Set(report.deleted.map((f) => f.id)), new Set(closure));
      applyStaged(db, lead);
      queueForgetFollowUps(
        db,
        { sessionIds: closure, factIds: report.deleted.map((f) => f.id) },
        opts.now ?? Date.now(),
      );
    }
    clearStaged(db);
    return report;
  };
  // A dry run still uses a transaction so its view is one consistent snapshot.
  return opts.dryRun ? db.transaction(run).deferred() : writeTx(db, run);
}

/**
 * Persisted recall blocks (in any session's transcript) are copies of the facts they recalled:
 * each block holding one of these facts loses the records of deleted facts and any citation of a
 * forgotten session; a block with no record left is removed. In the forget's transaction.
 */
function scrubRecallBlocks(
  db: Db,
  blocks: readonly { id: string; content: string }[],
  deletedFactIds: ReadonlySet<string>,
  forgottenSessions: ReadonlySet<string>,
): void {
  for (const row of blocks) {
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
    const evidenceRemoved = factEvidenceCount(db, factId);
    if (!opts.dryRun) {
      scrubRecallBlocks(db, recallRowsOf(db, [factSeqOf(db, factId)!]), new Set([factId]), new Set());
      deleteFact(db, factId);
      queueForgetFollowUps(db, { sessionIds: [], factIds: [factId] }, opts.now ?? Date.now());
    }
    return {
      dryRun: opts.dryRun,
      fact: { id: fact.id, text: fact.text, scope: fact.scope, scopeKey: fact.scopeKey },
      evidenceRemoved,
    };
  });
}
