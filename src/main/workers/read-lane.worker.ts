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
 * Priming runs only after this long without a request. A step cannot be interrupted and a cold
 * one takes 5-30 ms at 100k facts: run between an agent's first calls (a few milliseconds apart),
 * steps made those calls wait for them (a first memory_begin_turn's recall waited 11 ms). Once
 * requests come, they warm the code themselves; the rest of the priming waits for a lull.
 */
const PRIME_QUIET_MS = 50;
/** This worker's requests; quiet since forever until the first one, so priming starts at once. */
const requests = new RequestGate(-Infinity);

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
  const real = req.task !== 'warm';
  if (real) requests.enter();
  try {
    res = { id: req.id, ok: true, result: handle(req) };
  } catch (e) {
    const err = e as Error & { code?: string; field?: string };
    res = { id: req.id, ok: false, error: { name: err.name, message: err.message, code: err.code, field: err.field } };
  } finally {
    if (real) requests.leave();
  }
  parentPort!.postMessage(res);
  if (req.task === 'warm' && res.ok) {
    const busy = () => requests.busyUntilQuiet(PRIME_QUIET_MS);
    void runStepByStep(primeSteps(reader(), lane().wikiDir), busy).then(saveCompileCache);
  }
});

parentPort!.on('close', () => db?.close());
