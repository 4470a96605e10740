import Database from 'better-sqlite3';
import type { Db } from './db';

/**
 * The connection and the one statement of the background checkpointer
 * (workers/background-checkpoints.ts): a connection of its own that never reads a table or
 * writes a row, only copies the WAL's committed pages back into memory.db while the writer goes
 * on. It must be able to write the file (a read-only connection cannot checkpoint). Only types
 * come from db.ts, so the worker that runs this loads no migrations.
 */
export function openCheckpointConnection(file: string, nativeBinding: string | undefined): Db {
  const db = new Database(file, { fileMustExist: true, nativeBinding });
  // A passive checkpoint never waits for a lock; the timeout only covers opening the WAL index.
  db.pragma('busy_timeout = 1000');
  // As the writer's: the WAL is synced before its pages are copied and memory.db after.
  db.pragma('synchronous = NORMAL');
  // No page cache or memory map worth keeping: the copy goes straight from WAL to file.
  db.pragma('cache_size = -256');
  db.pragma('mmap_size = 0');
  return db;
}

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
 * for readers or blocking the writer (PASSIVE). Once all frames are copied, the writer's next
 * transaction starts the WAL over from its beginning instead of growing it.
 */
export function passiveCheckpoint(db: Db): CheckpointResult {
  const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
  return { busy: row!.busy !== 0, walFrames: row!.log, copiedFrames: row!.checkpointed };
}
