import { Worker } from 'node:worker_threads';
import os from 'node:os';
import { CommandError, type ErrorCode } from '../../shared/errors';
import type { RecallResult } from '../memory/recall';
import { mergeSearchParts, type SearchHit, type SearchRequest, type SearchSource } from '../memory/search';
import type {
  ReadLaneInit,
  ReadLaneRequest,
  ReadLaneResponse,
  ReadLaneWorkerBoot,
  ReadLaneWorkerData,
} from './read-lane-protocol';
import { inlineReader } from './read-lane-tasks';
import { compileCacheArgv, launcherCompileCache, takePrestartedWorker } from './launch';
import { workerFile } from './worker-file';

/**
 * The read lane: a small pool of worker threads, each with its own read-only connection. The
 * main thread only posts a request and awaits the answer, so recall and memory_search never
 * block its event loop. Workers start on first use (a second one only when requests overlap),
 * are replaced if one dies, and the ones beyond the first stop again after a while idle.
 */
export interface ReadLane {
  recall(sessionId: string, text: string): Promise<RecallResult>;
  search(req: SearchRequest): Promise<SearchHit[]>;
  /** A round trip through a worker that opens its read connection: the database's schema version. */
  ping(): Promise<number>;
  /**
   * Starts one worker, opens its connection and primes it with one recall and one search in the
   * background, so the first recall of a long-running process (mcp, serve, the app) does not pay
   * for starting, compiling or reading the index. Requests that arrive before
   * the worker has answered run on the calling thread over a connection of its own (a few
   * milliseconds each, instead of waiting ~0.2 s for the worker to start). Failures surface on use.
   */
  warm(): void;
  /** Workers running now (the lane starts them on demand and stops idle extras). */
  workers(): number;
  /** Searches answered by two workers at once (split by source) since the lane was created. */
  splitSearches(): number;
  /** Stops the idle workers beyond the first now, as their idle timers would; how many stopped. */
  retireIdleExtras(): number;
  /**
   * Stops every worker when nothing is in flight (a long-running process with no requests for a
   * while: each worker holds its own heap and page cache); how many stopped. A lane that was warm
   * warms again on its next recall or search, which runs on the calling thread meanwhile.
   */
  rest(): number;
  /** Stops every worker; pending requests fail with `unavailable`. */
  close(): Promise<void>;
}

export interface ReadLaneOptions extends ReadLaneWorkerData {
  /**
   * Worker count; default one fewer than the cores (at most 4) so the main thread keeps a core,
   * and at least two on two cores, for split searches.
   */
  size?: number;
  /**
   * How long a worker beyond the first may sit idle before it stops (default 30 s): the lane
   * grows to `size` workers under concurrent load and shrinks back to one when the load is gone,
   * returning each extra worker's heap and page cache.
   */
  extraIdleMs?: number;
  /**
   * Whether a search of several sources may run on two idle workers at once, facts and wiki on
   * one and dialogue on the other (default: when there are two cores). The lane then keeps a
   * second worker while searches come.
   */
  splitSearch?: boolean;
}

const EXTRA_IDLE_MS = 30_000;

/** One fewer than the cores (at most 4) so the main thread keeps a core; two on two cores, for split searches. */
export const defaultReadLaneSize = (): number => {
  const cores = os.availableParallelism();
  return Math.max(cores >= 2 ? 2 : 1, Math.min(4, cores - 1));
};

/**
 * How a split search divides its sources: dialogue alone costs about as much as facts and wiki
 * together, so the two halves finish at about the same time.
 */
const SEARCH_HALVES: readonly (readonly SearchSource[])[] = [['facts', 'wiki'], ['dialogue']];

/** The read-lane worker's code (see worker-file.ts). */
export const readLaneWorkerFile = () => workerFile('read-lane.worker', 'read lane');

interface Job {
  req: Omit<ReadLaneRequest, 'id'>;
  resolve(v: unknown): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Job>;
  /** Set while an extra worker is idle: stops it when it fires. */
  retire: NodeJS.Timeout | null;
  /** The worker has answered a request: it is up, with its connection open. */
  answered: boolean;
}

/**
 * Requests in flight per worker. The rest wait in a queue on the main thread and are posted as
 * answers come back, so a burst of requests costs the event loop one small step per answer
 * instead of serializing the whole burst in one tick.
 */
const MAX_IN_FLIGHT = 4;

const failAll = (slot: Slot, error: Error) => {
  for (const job of slot.pending.values()) job.reject(error);
  slot.pending.clear();
};

/** Settles a job from its worker's answer; a CommandError keeps its code and field across the thread. */
function settle(job: Job, res: ReadLaneResponse): void {
  if (res.ok) job.resolve(res.result);
  else if (res.error.name === 'CommandError' && res.error.code) {
    job.reject(new CommandError(res.error.code as ErrorCode, res.error.message, res.error.field));
  } else job.reject(new CommandError('internal', `read lane: ${res.error.message}`));
}

class ReadLanePool {
  private readonly slots: (Slot | null)[];
  private readonly queue: Job[] = [];
  private nextId = 1;
  closed = false;
  /** Between warm() and the warm worker's first answer, requests run inline on this connection. */
  readonly inline: ReturnType<typeof inlineReader>;
  // Located on first use: a missing worker file fails recall and search (and doctor says why),
  // not the whole engine.
  private workerFile: ReturnType<typeof readLaneWorkerFile> | null = null;

  constructor(
    readonly size: number,
    private readonly data: ReadLaneWorkerData,
    private readonly extraIdleMs: number,
    private readonly splitSearch: boolean,
  ) {
    this.slots = new Array(size).fill(null);
    this.inline = inlineReader(data.dbPath, data.wikiDir);
  }

  private spawn(index: number): Slot {
    this.workerFile ??= readLaneWorkerFile();
    const worker = (index === 0 && this.adoptPrestarted()) || this.startWorker(this.workerFile);
    const slot: Slot = { worker, pending: new Map(), retire: null, answered: false };
    worker.on('message', (res: ReadLaneResponse) => {
      const job = slot.pending.get(res.id);
      if (!job) return;
      slot.pending.delete(res.id);
      slot.answered = true;
      // The worker is warm: from now on it answers. Closed here rather than when the warm promise
      // settles, so an answer that came in the same batch is never followed by an inline request.
      if (job.req.task === 'warm') this.inline.close();
      settle(job, res);
      this.pump();
      if (slot.pending.size === 0) this.idle(index, slot);
    });
    const gone = (why: string) => {
      if (slot.retire) clearTimeout(slot.retire);
      if (this.slots[index] !== slot) return;
      this.slots[index] = null;
      failAll(slot, new CommandError('unavailable', `read-lane worker stopped: ${why}`));
      // Queued requests go to a fresh worker.
      if (!this.closed) this.pump();
    };
    worker.on('error', (e) => gone(e.message));
    worker.on('exit', (code) => gone(`exit code ${code}`));
    worker.unref();
    return slot;
  }

  private startWorker(file: ReturnType<typeof readLaneWorkerFile>): Worker {
    const compileCache = launcherCompileCache();
    const boot: ReadLaneWorkerBoot = { ...this.data, compileCache };
    return new Worker(file.file, { execArgv: [...file.execArgv, ...compileCacheArgv(compileCache)], workerData: boot });
  }

  /** The worker the launcher started before the bundle loaded, told its data home; null when none. */
  private adoptPrestarted(): Worker | null {
    const worker = takePrestartedWorker();
    worker?.postMessage({ task: 'init', data: this.data } satisfies ReadLaneInit);
    return worker;
  }

  /** A worker with nothing in flight: it must not keep a CLI process alive, and an extra one stops after a while. */
  private idle(index: number, slot: Slot): void {
    slot.worker.unref();
    if (index === 0 || slot.retire) return;
    slot.retire = setTimeout(() => this.retireIdle(index, slot), this.extraIdleMs);
    slot.retire.unref();
  }

  /** Stops an extra worker that is still idle (its timer fired); the next burst starts it again. */
  retireIdle(index: number, slot: Slot | null = this.slots[index] ?? null): boolean {
    if (!slot) return false;
    slot.retire = null;
    if (index === 0 || slot.pending.size > 0 || this.slots[index] !== slot) return false;
    this.slots[index] = null;
    void slot.worker.terminate();
    return true;
  }

  /** Stops every worker if none has anything in flight and nothing waits; how many stopped. */
  rest(): number {
    if (this.closed || this.queue.length > 0 || this.inline.open) return 0;
    if (this.slots.some((s) => s && s.pending.size > 0)) return 0;
    let stopped = 0;
    this.slots.forEach((slot, i) => {
      if (!slot) return;
      if (slot.retire) clearTimeout(slot.retire);
      this.slots[i] = null;
      void slot.worker.terminate();
      stopped++;
    });
    return stopped;
  }

  /** How many workers are running now. */
  get running(): number {
    return this.slots.filter((s) => s !== null).length;
  }

  /** The least busy worker with room, starting one when that is better; null when all are full. */
  private pickFree(): Slot | null {
    let best = -1;
    let bestLoad = Infinity;
    for (let i = 0; i < this.size; i++) {
      // An idle live worker beats starting a new one; a busy one loses to starting one.
      const load = this.slots[i] ? this.slots[i]!.pending.size : 0.5;
      if (load < MAX_IN_FLIGHT && load < bestLoad) {
        best = i;
        bestLoad = load;
      }
    }
    return best < 0 ? null : (this.slots[best] ??= this.spawn(best));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const slot = this.pickFree();
      if (!slot) return;
      this.dispatch(slot, this.queue.shift()!);
    }
  }

  private dispatch(slot: Slot, job: Job): void {
    const id = this.nextId++;
    slot.pending.set(id, job);
    if (slot.retire) {
      clearTimeout(slot.retire);
      slot.retire = null;
    }
    // A worker with requests in flight keeps the process alive until they are answered.
    slot.worker.ref();
    slot.worker.postMessage({ ...job.req, id });
  }

  /** Sends a request to this worker, past the queue. */
  private post<T>(slot: Slot, req: Omit<ReadLaneRequest, 'id'>): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      this.dispatch(slot, { req, resolve: resolve as (v: unknown) => void, reject }),
    );
  }

  splits = 0;

  /**
   * A search of sources from both halves runs on two workers at once when two are up and idle and
   * nothing waits: a split never delays another request, it only uses a core that would sit
   * idle. Otherwise it runs whole on one worker, and the first such search while only one worker
   * runs starts the second (warmed and primed) for the searches after it.
   */
  search(req: SearchRequest): Promise<SearchHit[]> {
    const halves = SEARCH_HALVES.map((half) => req.sources.filter((s) => half.includes(s))).filter((h) => h.length);
    const pair = this.splitSearch && halves.length === 2 ? this.idlePair() : null;
    if (!pair) return this.run({ task: 'search', args: req });
    this.splits++;
    return Promise.all(
      halves.map((sources, i) => this.post<SearchHit[]>(pair[i]!, { task: 'searchPart', args: { ...req, sources } })),
    ).then((parts) => mergeSearchParts(parts, req.limit));
  }

  private idlePair(): [Slot, Slot] | null {
    if (this.closed || this.inline.open || this.queue.length > 0) return null;
    const live = this.slots.filter((s): s is Slot => s !== null);
    if (live.some((s) => s.pending.size > 0)) return null;
    const up = live.filter((s) => s.answered);
    if (up.length >= 2) return [up[0]!, up[1]!];
    // One worker up and no second one starting: start it.
    const free = this.slots.indexOf(null);
    if (up.length === 1 && live.length === 1 && free >= 0) {
      const partner = (this.slots[free] = this.spawn(free));
      this.post(partner, { task: 'warm', args: {} }).catch(() => {});
    }
    return null;
  }

  run<T>(req: Omit<ReadLaneRequest, 'id'>): Promise<T> {
    if (this.closed) return Promise.reject(new CommandError('unavailable', 'the read lane is closed'));
    if (this.inline.open && req.task !== 'ping' && req.task !== 'warm') return this.inline.run<T>(req);
    try {
      this.workerFile ??= readLaneWorkerFile();
    } catch (e) {
      return Promise.reject(e as Error);
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ req, resolve: resolve as (v: unknown) => void, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.inline.close();
    const error = new CommandError('unavailable', 'the read lane is closed');
    for (const job of this.queue.splice(0)) job.reject(error);
    await Promise.all(
      this.slots.map(async (s, i) => {
        if (!s) return;
        this.slots[i] = null;
        if (s.retire) clearTimeout(s.retire);
        failAll(s, error);
        await s.worker.terminate();
      }),
    );
  }
}

export function createReadLane(options: ReadLaneOptions): ReadLane {
  const size = Math.max(1, options.size ?? defaultReadLaneSize());
  const splitSearch = (options.splitSearch ?? os.availableParallelism() >= 2) && size >= 2;
  const pool = new ReadLanePool(
    size,
    { dbPath: options.dbPath, wikiDir: options.wikiDir, nativeBinding: options.nativeBinding },
    options.extraIdleMs ?? EXTRA_IDLE_MS,
    splitSearch,
  );
  let warmed = false;
  let rested = false;
  const warm = () => {
    if (warmed || pool.closed) return;
    warmed = true;
    pool.inline.start();
    void pool
      .run({ task: 'warm', args: {} })
      .catch(() => {})
      .finally(() => pool.inline.close());
  };
  /** A lane that rested warms again as it did at start: this request runs inline meanwhile. */
  const wake = () => {
    if (!rested) return;
    rested = false;
    warmed = false;
    warm();
  };
  return {
    recall: (sessionId, text) => {
      wake();
      return pool.run({ task: 'recall', args: { sessionId, text } });
    },
    search: (req) => {
      wake();
      return pool.search(req);
    },
    ping: () => pool.run({ task: 'ping', args: {} }),
    workers: () => pool.running,
    splitSearches: () => pool.splits,
    retireIdleExtras: () => [...Array(pool.size).keys()].filter((i) => pool.retireIdle(i)).length,
    rest: () => {
      const stopped = pool.rest();
      // Only a lane that was warmed comes back warm; a CLI's lane starts its worker on demand.
      if (stopped > 0 && warmed) rested = true;
      return stopped;
    },
    warm,
    close: () => pool.close(),
  };
}
