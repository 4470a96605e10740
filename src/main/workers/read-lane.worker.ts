/**
 * A read-lane worker: one read-only SQLite connection (openReader) in its own thread, so FTS
 * candidate retrieval, ranking and wiki scanning never run on the main event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openReader, setDefaultNativeBinding, type Db } from '../store/db';
import { recall } from '../memory/recall';
import { memorySearch, type SearchRequest } from '../memory/search';
import type { ReadLaneRequest, ReadLaneResponse, ReadLaneWorkerData } from './read-lane-protocol';

const data = workerData as ReadLaneWorkerData;
setDefaultNativeBinding(data.nativeBinding);
let db: Db | null = null;
function open(): Db {
  const reader = openReader(data.dbPath);
  // The FTS indexes are read in many small b-tree probes: a roomy page cache and a memory map
  // keep them off the syscall path (the 2 MB default cache thrashes at 1M facts).
  reader.pragma('cache_size = -65536');
  reader.pragma('mmap_size = 268435456');
  return reader;
}
const reader = (): Db => (db ??= open());

function handle(req: ReadLaneRequest): unknown {
  switch (req.task) {
    case 'recall':
      return recall(reader(), req.args.sessionId, req.args.text);
    case 'search':
      return memorySearch(reader(), data.wikiDir, req.args as SearchRequest);
    case 'ping':
      return (reader().prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number })
        .v;
  }
}

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
