import type { Db } from './db';

/** What one checkpoint found: frames in the WAL and frames now copied into memory.db. */
export interface CheckpointResult {
  /** A reader or another checkpointer kept it from running at all. */
  busy: boolean;
  /** Frames in the WAL (-1 when the database is not in WAL mode). */
  walFrames: number;
  /** Frames copied into memory.db, this checkpoint's and earlier ones'. */
  copiedFrames: number;
}

/**
 * Copies every committed page no reader still needs from the WAL into memory.db, without waiting
 * for readers (PASSIVE). Once all frames are copied, the writer's next transaction starts the WAL
 * over from its beginning instead of growing it.
 */
export function passiveCheckpoint(db: Db): CheckpointResult {
  const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
  return { busy: row!.busy !== 0, walFrames: row!.log, copiedFrames: row!.checkpointed };
}
