import { observeWriteTransactions, passiveCheckpoint, type Db } from './db';

/**
 * Long jobs (an import, extraction over an imported backlog) write thousands of short
 * transactions. With automatic checkpoints, every few hundred of them one commit also copies the
 * whole WAL (wal_autocheckpoint pages) back into memory.db, holding the writer for 50-75 ms. While
 * a pacer is active the connection's automatic checkpoint is off and the job checkpoints itself,
 * between its transactions, in small passive steps: the writer is never held for it, and each
 * step copies only what the last few transactions wrote.
 */
export interface CheckpointPacer {
  /** Between two transactions: a passive checkpoint once enough were committed since the last. */
  step(): void;
  /** The connection's own automatic checkpoint again (when no other pacer is active). */
  done(): void;
}

/** Write transactions (of the whole process) between two checkpoint steps. */
export const TRANSACTIONS_PER_CHECKPOINT = 32;

const paused = new WeakMap<Db, { pacers: number; previous: number }>();

export function paceCheckpoints(db: Db, every = TRANSACTIONS_PER_CHECKPOINT): CheckpointPacer {
  const state = paused.get(db) ?? { pacers: 0, previous: db.pragma('wal_autocheckpoint', { simple: true }) as number };
  if (state.pacers++ === 0) db.pragma('wal_autocheckpoint = 0');
  paused.set(db, state);
  let since = 0;
  const stopCounting = observeWriteTransactions(() => void since++);
  let finished = false;
  return {
    step() {
      if (finished || since < every || !db.open || db.inTransaction) return;
      since = 0;
      passiveCheckpoint(db);
    },
    done() {
      if (finished) return;
      finished = true;
      stopCounting();
      if (--state.pacers === 0 && db.open) {
        db.pragma(`wal_autocheckpoint = ${state.previous}`);
        paused.delete(db);
      }
    },
  };
}
