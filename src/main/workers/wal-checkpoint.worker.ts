/**
 * The background checkpointer's thread: one connection of its own (store/wal-checkpoint.ts) that
 * copies the WAL back into memory.db whenever the main thread asks, so that copy (and the two
 * fsyncs around it) never runs inside a request on the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openCheckpointConnection, passiveCheckpoint } from '../store/wal-checkpoint';
import type { CheckpointWorkerData, CheckpointReply } from './wal-checkpoint-protocol';

const { dbPath, nativeBinding } = workerData as CheckpointWorkerData;
let db: ReturnType<typeof openCheckpointConnection> | null = null;

parentPort!.on('message', (id: number) => {
  let reply: CheckpointReply;
  const started = performance.now();
  try {
    db ??= openCheckpointConnection(dbPath, nativeBinding);
    reply = { id, ok: true, result: passiveCheckpoint(db), ms: performance.now() - started };
  } catch (e) {
    reply = { id, ok: false, error: (e as Error).message, ms: performance.now() - started };
  }
  parentPort!.postMessage(reply);
});

parentPort!.on('close', () => db?.close());
