/**
 * A read-lane worker: one read-only SQLite connection (openReader) in its own thread, so FTS
 * candidate retrieval, ranking and wiki scanning never run on the main event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { setDefaultNativeBinding, type Db } from '../store/db';
import { openLaneReader, runReadTask } from './read-lane-tasks';
import type { ReadLaneRequest, ReadLaneResponse, ReadLaneWorkerData } from './read-lane-protocol';

const data = workerData as ReadLaneWorkerData;
setDefaultNativeBinding(data.nativeBinding);
let db: Db | null = null;
const reader = (): Db => (db ??= openLaneReader(data.dbPath));
const handle = (req: ReadLaneRequest): unknown => runReadTask(reader(), data.wikiDir, req);

parentPort!.on('message', (req: ReadLaneRequest) => {
  let res: ReadLaneResponse;
  try {
    res = { id: req.id, ok: true, result: handle(req) };
  } catch (e) {
    const err = e as Error & { code?: string; field?: string };
    res = { id: req.id, ok: false, error: { name: err.name, message: err.message, code: err.code, field: err.field } };
  }
  parentPort!.postMessage(res);
});

parentPort!.on('close', () => db?.close());
