import type { CheckpointResult } from '../store/wal-checkpoint';

/** Messages between the main thread and the checkpointer's thread (a request is its id alone). */
export interface CheckpointWorkerData {
  dbPath: string;
  nativeBinding?: string;
}

export type CheckpointReply =
  { id: number; ok: true; result: CheckpointResult; ms: number } | { id: number; ok: false; error: string; ms: number };
