import { appliedSchemaVersion, openLaneConnection, readTx, type Db } from '../store/db';
import { recall } from '../memory/recall';
import { memorySearch, searchPart, SEARCH_SOURCES } from '../memory/search';
import { warmUpSample } from '../store/warm-up';
import type { ReadLaneRequest } from './read-lane-protocol';

/** A read-only connection for the read lane's work (a worker's, or the main thread's while one starts). */
export const openLaneReader = (dbPath: string): Db => openLaneConnection(dbPath);

/** Runs one read-lane task on `db`, in one read transaction. */
export const runReadTask = (db: Db, wikiDir: string, task: Omit<ReadLaneRequest, 'id'>): unknown =>
  readTx(db, () => runTask(db, wikiDir, task as ReadLaneRequest));

function runTask(db: Db, wikiDir: string, req: ReadLaneRequest): unknown {
  switch (req.task) {
    case 'recall':
      return recall(db, req.args.sessionId, req.args.text);
    case 'search':
      return memorySearch(db, wikiDir, req.args);
    case 'searchPart':
      return searchPart(db, wikiDir, req.args);
    case 'ping':
      return appliedSchemaVersion(db);
    case 'warm':
      // The connection is open: the worker answers from now on, and primes itself (primeSteps).
      return appliedSchemaVersion(db);
  }
}

/** The read lane's priming: the steps an agent's first call needs, then the ones for later calls. */
export interface PrimeSteps {
  /** A recall per sample fact: an agent's first call is memory_begin_turn, which recalls. */
  recalls: (() => void)[];
  /** A search per sample fact, one source a step: searches come later in a session. */
  searches: (() => void)[];
}

/**
 * A recall and a search for each of a few sample facts, results discarded, one step each: the
 * first requests a process serves would otherwise pay for compiling and then optimizing the
 * ranking code, preparing statements and reading the index's pages (30-60 ms at 100k facts). A
 * failure here is left for real use to report.
 */
export function primeSteps(db: Db, wikiDir: string): PrimeSteps {
  const quietly = (fn: () => void) => () => {
    try {
      readTx(db, fn);
    } catch {
      // The store is unreadable or changed shape: the first real request says why.
    }
  };
  let sample: ReturnType<typeof warmUpSample>;
  try {
    sample = readTx(db, () => warmUpSample(db));
  } catch {
    return { recalls: [], searches: [] };
  }
  if (!sample) return { recalls: [], searches: [] };
  const { sessionId, texts } = sample;
  // A search is primed one source a step: a cold search at 100k facts takes 15-30 ms, and a
  // request that comes while a step runs waits for it.
  return {
    recalls: texts.map((text) => quietly(() => void recall(db, sessionId, text))),
    searches: texts.flatMap((text) =>
      SEARCH_SOURCES.map((source) =>
        quietly(() => void memorySearch(db, wikiDir, { sessionId, query: text, limit: 8, sources: [source] })),
      ),
    ),
  };
}

/**
 * The main thread's stand-in while the warm worker starts: opened on first use, closed for good
 * once the worker answers (`close`).
 */
export function inlineReader(dbPath: string, wikiDir: string) {
  let db: Db | null = null;
  let open = false;
  return {
    get open(): boolean {
      return open;
    },
    start(): void {
      open = true;
    },
    run<T>(req: Omit<ReadLaneRequest, 'id'>): Promise<T> {
      try {
        db ??= openLaneReader(dbPath);
        return Promise.resolve(runReadTask(db, wikiDir, req) as T);
      } catch (e) {
        return Promise.reject(e as Error);
      }
    },
    close(): void {
      open = false;
      db?.close();
      db = null;
    },
  };
}
