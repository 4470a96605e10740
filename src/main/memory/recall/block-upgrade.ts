import type { EngineBase } from '../../engine-parts';
import { writeTx, type Db } from '../../store/db';
import { getSession } from '../../store/sessions';
import {
  deleteRecallBlock,
  dropTask,
  factSeqOf,
  recallBlocksAfter,
  rewriteRecallBlock,
  setTaskProgress,
  taskProgress,
} from '../../store/upgrade-tasks';
import { ownerOf } from '../scope';
import { evidenceRef } from '../citations';
import { mapBlockRecords, type BlockRecord } from './block';

const TASK = 'recall-block-citations';
const ROWS_PER_STEP = 200;

/** The top-level owner of a session, or null when it no longer exists. */
function ownerIdOf(db: Db, sessionId: string, cache: Map<string, string | null>): string | null {
  let owner = cache.get(sessionId);
  if (owner === undefined) {
    const s = getSession(db, sessionId);
    cache.set(sessionId, (owner = s ? ownerOf(db, s).id : null));
  }
  return owner;
}

/** One record of an old block, as the recall block writes it today (see block.ts). */
function confineRecord(db: Db, team: string, r: BlockRecord, owners: Map<string, string | null>): BlockRecord | null {
  const seq = r.id === undefined ? undefined : factSeqOf(db, r.id);
  if (seq === undefined) return null; // a copy of a fact forgotten before forget reached recall blocks
  const cited = r.citation?.sessionId;
  if (typeof cited !== 'string') return r;
  const citedOwner = ownerIdOf(db, cited, owners);
  if (citedOwner === team) return r;
  const messageId = typeof r.citation?.messageId === 'string' ? r.citation.messageId : null;
  return {
    ...r,
    citation: citedOwner === null ? {} : { ref: evidenceRef(db, seq, { sessionId: cited, messageId }) },
  };
}

/** Rewrites the next few old blocks; false when none is left (the task row is then dropped). */
export function upgradeStep(db: Db, batch = ROWS_PER_STEP): boolean {
  return writeTx(db, () => {
    const progress = taskProgress(db, TASK);
    if (progress === undefined) return false;
    const rows = recallBlocksAfter(db, progress, batch);
    if (rows.length === 0) {
      dropTask(db, TASK);
      return false;
    }
    const owners = new Map<string, string | null>();
    for (const row of rows) {
      const team = ownerIdOf(db, row.session_id, owners);
      const next =
        team === null ? row.content : mapBlockRecords(row.content, (r) => confineRecord(db, team, r, owners));
      if (next === null) deleteRecallBlock(db, row.id);
      else if (next !== row.content) rewriteRecallBlock(db, row.id, next);
    }
    setTaskProgress(db, TASK, rows.at(-1)!.rowid);
    return true;
  });
}

/** Runs the upgrade in the background of an engine, a step at a time; a restart resumes it. */
export function startBlockUpgrade(engine: Pick<EngineBase, 'db' | 'onClose'>): void {
  let stopped = false;
  engine.onClose(() => void (stopped = true));
  const pending = () => taskProgress(engine.db, TASK) !== undefined;
  if (!pending()) return;
  const next = () => {
    if (stopped) return;
    try {
      if (upgradeStep(engine.db)) setImmediate(next);
    } catch (e) {
      console.error(`evoflux: recall block upgrade paused: ${(e as Error).message}`);
    }
  };
  setImmediate(next);
}
