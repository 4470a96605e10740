/**
 * A read-lane worker: one read-only SQLite connection (openReader) in its own thread, so FTS
 * candidate retrieval, ranking and wiki scanning never run on the main event loop.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { setDefaultNativeBinding, type Db } from '../store/db';
import { openLaneReader, primeSteps, runReadTask } from './read-lane-tasks';
import { runStepByStep } from '../event-loop-steps';
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

/**
 * The search half of the priming waits until no request has come for this long (and as long since
 * the worker started). A step cannot be interrupted, and a cold search step takes 5-30 ms at 100k
 * facts: run while an agent's first calls came (a few milliseconds apart), such steps made them
 * wait (a first memory_begin_turn's recall waited 11 ms behind one). Agents search later in a
 * session, after the pauses in which a model thinks; a client that calls without pause warms the
 * code with its own calls.
 */
const SEARCH_PRIME_QUIET_MS = 250;
/** This worker's requests, `warm` among them: the searches' lull counts from the lane's start. */
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
    // The recalls at once, one per turn of the event loop: a request that comes meanwhile waits
    // for one step at most. Then the searches, in a lull.
    const { recalls, searches } = primeSteps(reader(), lane().wikiDir);
    void runStepByStep(recalls)
      .then(() => runStepByStep(searches, () => requests.busyUntilQuiet(SEARCH_PRIME_QUIET_MS)))
      .then(saveCompileCache);
  }
});

parentPort!.on('close', () => db?.close());
