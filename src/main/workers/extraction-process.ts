import { fork, type ChildProcess } from 'node:child_process';
import type { Candidate, Extractor, TranscriptWindow } from '../memory/extraction/types';
import type { ExtractionRequest, ExtractionResponse } from './extraction-protocol';
import { workerFile } from './worker-file';

/**
 * The built-in rule extractor, run in a child process of its own (extraction.worker.ts). In the
 * main thread its English model took ~0.2 s to load, holding up whichever agent call came next
 * (a fresh server's fourth `memory_begin_turn` took 240 ms, right after the third response set off
 * the first extraction), and then kept ~40 MB for the life of the process. In a worker thread the
 * call was no longer held up, but the allocator kept ~10-20 MB of what the worker had freed after
 * it stopped (an agent that completed turns idled at 81-84 MB against 71-73 MB for one that did
 * not). The child starts on the first window, loads the model there, and stops when the process
 * rests (`rest`), which gives everything it used back; the next window starts it again.
 */
export interface ExtractionProcess extends Extractor {
  /** Stops the child process if nothing is in flight; whether it stopped one. */
  rest(): boolean;
  /** Whether a child process is running now. */
  readonly running: boolean;
  close(): Promise<void>;
}

interface Pending {
  resolve(candidates: Candidate[]): void;
  reject(e: Error): void;
}

class ChildExtractor implements ExtractionProcess {
  readonly name = 'rules';
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  extract(window: TranscriptWindow, signal: AbortSignal): Promise<Candidate[]> {
    if (this.closed) return Promise.reject(new Error('the rule extractor is closed'));
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    const child = (this.child ??= this.start());
    const id = this.nextId++;
    return new Promise<Candidate[]>((resolve, reject) => {
      // Cancelled (a shutdown): the caller stops waiting; the child's late answer is dropped.
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
      keepAlive(child, true);
      child.send({ id, entries: window.entries } satisfies ExtractionRequest);
    });
  }

  rest(): boolean {
    if (!this.child || this.pending.size > 0) return false;
    void stop(this.child);
    this.child = null;
    return true;
  }

  get running(): boolean {
    return this.child !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    this.child = null;
    this.failAll(new Error('the rule extractor is closed'));
    if (child) await stop(child);
  }

  private start(): ChildProcess {
    const { file, execArgv } = workerFile('extraction.worker', 'extraction');
    // stdout is never the child's: an `mcp` server's stdout belongs to the protocol. The desktop
    // app's main process is Electron, which runs a forked script as plain Node with this set.
    const child = fork(file, [], {
      execArgv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      serialization: 'advanced',
    });
    child.on('message', (res: ExtractionResponse) => {
      const job = this.pending.get(res.id);
      if (!job) return;
      this.pending.delete(res.id);
      if (res.ok) job.resolve(res.candidates);
      else job.reject(new Error(`rule extractor: ${res.error}`));
      // Nothing in flight: the child must not keep a process alive on its own.
      if (this.pending.size === 0) keepAlive(child, false);
    });
    const gone = (why: string) => {
      if (this.child !== child) return;
      this.child = null;
      this.failAll(new Error(`rule extractor process stopped: ${why}`));
    };
    child.on('error', (e) => gone(e.message));
    child.on('exit', (code, signal) => gone(signal ? `signal ${signal}` : `exit code ${code}`));
    return child;
  }

  private failAll(e: Error): void {
    for (const job of this.pending.values()) job.reject(e);
    this.pending.clear();
  }
}

/** Whether the child (and its message channel) keeps this process's event loop alive. */
function keepAlive(child: ChildProcess, on: boolean): void {
  if (on) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}

/** How long a child may take to exit once asked before it is killed outright. */
const STOP_GRACE_MS = 5_000;

/** Ends the child and resolves once it has exited. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  // An idle child is unreferenced; left so, a process with nothing else to do would end its event
  // loop before the exit arrives, and whoever awaits this (engine.close, then the CLI's exit code)
  // would never resume.
  keepAlive(child, true);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  child.kill();
  return exited.finally(() => clearTimeout(kill));
}

export const createExtractionProcess = (): ExtractionProcess => new ChildExtractor();
