import { Worker } from 'node:worker_threads';
import type { Candidate, Extractor, TranscriptWindow } from '../memory/extraction/types';
import type { ExtractionRequest, ExtractionResponse } from './extraction-protocol';
import { workerFile } from './worker-file';

/**
 * The built-in rule extractor, run in a worker thread of its own (extraction.worker.ts). In the
 * main thread its English model took ~0.2 s to load, holding up whichever agent call came next
 * (a fresh server's fourth `memory_begin_turn` took 240 ms, right after the third response set
 * off the first extraction), and then kept ~40 MB for the life of the process. The worker starts
 * on the first window, loads the model there, and stops when the process rests (`rest`), giving
 * the model's memory back; the next window starts it again.
 */
export interface ExtractionThread extends Extractor {
  /** Stops the worker if nothing is in flight; whether it stopped one. */
  rest(): boolean;
  /** Whether a worker is running now. */
  readonly running: boolean;
  close(): Promise<void>;
}

interface Pending {
  resolve(candidates: Candidate[]): void;
  reject(e: Error): void;
}

class WorkerExtractor implements ExtractionThread {
  readonly name = 'rules';
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  extract(window: TranscriptWindow, signal: AbortSignal): Promise<Candidate[]> {
    if (this.closed) return Promise.reject(new Error('the rule extractor is closed'));
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise<Candidate[]>((resolve, reject) => {
      // Cancelled (a shutdown): the caller stops waiting; the worker's late answer is dropped.
      const onAbort = () => {
        this.pending.delete(id);
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const settle =
        <T>(fn: (v: T) => void) =>
        (v: T) => {
          signal.removeEventListener('abort', onAbort);
          fn(v);
        };
      this.pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
      worker.ref();
      worker.postMessage({ id, entries: window.entries } satisfies ExtractionRequest);
    });
  }

  rest(): boolean {
    if (!this.worker || this.pending.size > 0) return false;
    const worker = this.worker;
    this.worker = null;
    void worker.terminate();
    return true;
  }

  get running(): boolean {
    return this.worker !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.failAll(new Error('the rule extractor is closed'));
    await worker?.terminate();
  }

  private start(): Worker {
    const { file, execArgv } = workerFile('extraction.worker', 'extraction');
    const worker = new Worker(file, { execArgv });
    worker.on('message', (res: ExtractionResponse) => {
      const job = this.pending.get(res.id);
      if (!job) return;
      this.pending.delete(res.id);
      if (res.ok) job.resolve(res.candidates);
      else job.reject(new Error(`rule extractor: ${res.error}`));
      // Nothing in flight: the worker must not keep a process alive on its own.
      if (this.pending.size === 0) worker.unref();
    });
    const gone = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failAll(new Error(`rule extractor worker stopped: ${why}`));
    };
    worker.on('error', (e) => gone(e.message));
    worker.on('exit', (code) => gone(`exit code ${code}`));
    return worker;
  }

  private failAll(e: Error): void {
    for (const job of this.pending.values()) job.reject(e);
    this.pending.clear();
  }
}

export const createExtractionThread = (): ExtractionThread => new WorkerExtractor();
