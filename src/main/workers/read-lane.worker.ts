/**
 * A read-lane worker: one read-only SQLite connection (openReader) in its own thread, so FTS
 * candidate retrieval, ranking and wiki scanning never run on the main event loop.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { setDefaultNativeBinding, type Db } from '../store/db';
import { openLaneReader, primeSteps, runReadTask } from './read-lane-tasks';
import { primeInOrder } from './prime-order';
import { RequestGate } from '../request-gate';
import type {
  ReadLaneInit,
  ReadLaneRequest,
  ReadLaneResponse,
  ReadLaneWorkerBoot,
  ReadLaneWorkerData,
} from './read-lane-protocol';

const boot = workerData as ReadLaneWorkerBoot;
let data: ReadLaneWorkerData | null = 'prestarted' in boot ? null : boot;
if (data) setDefaultNativeBinding(data.nativeBinding);
let db: Db | null = null;

/** This worker's requests, `warm` among them: the lull its searches are primed in counts from its start. */
const requests = new RequestGate();

function lane(): ReadLaneWorkerData {
  if (!data) throw new Error('read-lane worker: a task came before its data home');
  return data;
}
const reader = (): Db => (db ??= openLaneReader(lane().dbPath));
const handle = (req: ReadLaneRequest): unknown => runReadTask(reader(), lane().wikiDir, req);

/** The compile cache preloaded into this worker (bin/worker-compile-cache.js) keeps what warming compiled. */
function saveCompileCache(): void {
  if (boot.compileCache) (createRequire(__filename)(boot.compileCache.preload) as { save(): void }).save();
}

parentPort!.on('message', (req: ReadLaneRequest | ReadLaneInit) => {
  if (req.task === 'init') {
    data ??= req.data;
    setDefaultNativeBinding(data.nativeBinding);
    return;
  }
  let res: ReadLaneResponse;
  requests.enter();
  try {
    res = { id: req.id, ok: true, result: handle(req) };
  } catch (e) {
    const err = e as Error & { code?: string; field?: string };
    res = { id: req.id, ok: false, error: { name: err.name, message: err.message, code: err.code, field: err.field } };
  } finally {
    requests.leave();
  }
  parentPort!.postMessage(res);
  if (req.task === 'warm' && res.ok) {
    void primeInOrder(primeSteps(reader(), lane().wikiDir), requests).then(saveCompileCache);
  }
});

parentPort!.on('close', () => db?.close());
