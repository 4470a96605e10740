import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import type { EngineBase } from '../../engine-parts';
import type { ExtractionService } from '../extraction/service';
import type { importJob } from '../../../shared/commands/history-import';
import { CommandError, isCommandError } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import { countPendingExtraction } from '../../store/imports';
import { observeWriteTransactions } from '../../store/db';
import { ImportExtractionQueue } from './extraction-queue';
import { importConversations, type ConversationImportOptions, type ConversationImportReport } from './run';
import type { ImportContext, ImportFormat } from './types';
import { normalizeWorkspacePath } from '../workspace-path';

export type ImportJobState = z.infer<typeof importJob>;

export interface ImportRequest extends Partial<ImportContext> {
  from: string;
  format: ImportFormat;
  waitForExtraction: boolean;
  /** Shown instead of the path (an upload's own file name). */
  displayName?: string;
  /** Delete `from` when the import ends, however it ends (an uploaded temp file). */
  removeAfter?: boolean;
  /** After each conversation is committed. */
  onConversation?: ConversationImportOptions['onConversation'];
}

export type ImportResult = ConversationImportReport & {
  jobId: string;
  extraction: NonNullable<ImportJobState['extraction']>;
};

type ServiceEngine = Pick<EngineBase, 'db' | 'paths' | 'clock' | 'settings' | 'events' | 'log' | 'onClose'> & {
  extraction: ExtractionService;
};

/** Jobs kept for import.status: the running one and the last few. */
const JOBS_KEPT = 10;
const PROGRESS_JOB = 'conversation import';
const tenthsOfMb = (bytes: number) => Math.round(bytes / 104_857.6) / 10;

/** Where uploads to the HTTP door wait for their import: inside the private data home. */
export const uploadDir = (paths: EngineBase['paths']): string => path.join(paths.root, 'tmp');
export const UPLOAD_PREFIX = 'upload-';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Uploads left by a process that died mid-import (the name carries its pid). */
export function removeStaleUploads(dir: string): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const pid = Number(/^upload-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid || alive(pid)) continue;
    rmSync(path.join(dir, name), { force: true });
    removed++;
  }
  return removed;
}

/**
 * Conversation imports for one engine: one at a time, tracked as jobs (so the window can show
 * progress and the summary), each stopped between two conversations when the engine closes.
 * Extraction over the imported sessions runs through ImportExtractionQueue.
 */
export class ConversationImportService {
  readonly extraction: ImportExtractionQueue;
  private readonly jobs: ImportJobState[] = [];
  private current: { job: ImportJobState; controller: AbortController; promise: Promise<unknown> } | null = null;

  constructor(private readonly engine: ServiceEngine) {
    this.extraction = new ImportExtractionQueue(engine);
  }

  start(): this {
    removeStaleUploads(uploadDir(this.engine.paths));
    this.engine.onClose(async () => {
      this.current?.controller.abort();
      await this.current?.promise.catch(() => {});
      await this.extraction.stop();
    });
    return this;
  }

  /** An import of this process is under way. */
  get running(): boolean {
    return this.current !== null;
  }

  status() {
    return {
      jobs: this.jobs.map((j) => ({ ...j })),
      extraction: {
        pendingSessions: countPendingExtraction(this.engine.db),
        runningSessions: this.extraction.running,
        background: this.engine.settings.import.extractInBackground && this.engine.settings.extraction.enabled,
      },
    };
  }

  /** Refused while another import of this process runs. */
  private claim(request: ImportRequest): { job: ImportJobState; controller: AbortController } {
    if (this.current) {
      if (request.removeAfter) rmSync(request.from, { force: true });
      throw new CommandError(
        'busy',
        `an import is already running (${this.current.job.file}); wait for it (import status shows its progress)`,
        'from',
      );
    }
    const job: ImportJobState = {
      id: newId(),
      file: request.displayName ?? path.resolve(request.from),
      state: 'running',
      phase: 'importing',
      bytesRead: 0,
      bytesTotal: 0,
      conversations: 0,
      messagesAdded: 0,
      startedAt: this.engine.clock.now(),
      finishedAt: null,
      report: null,
      extraction: null,
      error: null,
    };
    this.jobs.unshift(job);
    this.jobs.splice(JOBS_KEPT);
    return { job, controller: new AbortController() };
  }

  /** Imports and returns the summary (the contract command). */
  run(request: ImportRequest): Promise<ImportResult> {
    const { job, controller } = this.claim(request);
    const promise = this.execute(job, controller.signal, request);
    this.current = { job, controller, promise };
    return promise;
  }

  /** Starts an import in the background and returns its job (the HTTP upload; poll import.status). */
  begin(request: ImportRequest): ImportJobState {
    const { job, controller } = this.claim(request);
    const promise = this.execute(job, controller.signal, request);
    promise.catch(() => {});
    this.current = { job, controller, promise };
    return { ...job };
  }

  private async execute(job: ImportJobState, signal: AbortSignal, request: ImportRequest): Promise<ImportResult> {
    try {
      const workspace = request.workspace ? normalizeWorkspacePath(request.workspace) : null;
      let lastShown = -1;
      const report = await importConversations(
        {
          db: this.engine.db,
          now: () => this.engine.clock.now(),
          newId,
          maxFileBytes: this.engine.settings.import.maxFileBytes,
        },
        {
          from: request.from,
          format: request.format,
          context: {
            projectId: request.projectId ?? null,
            workspace,
            folderId: request.folderId ?? null,
          },
          displayName: request.displayName,
          onConversation: request.onConversation,
          signal,
          onProgress: (p) => {
            Object.assign(job, p);
            const done = tenthsOfMb(p.bytesRead);
            if (done === lastShown) return;
            lastShown = done;
            this.engine.events.emit('progress', {
              job: PROGRESS_JOB,
              unit: 'MB',
              done,
              total: tenthsOfMb(p.bytesTotal),
            });
          },
        },
      );
      job.bytesTotal = report.bytes;
      job.report = report;
      this.engine.events.emit('messages-written', { sessionIds: [] });
      job.extraction = await this.extractAfter(job, signal, request.waitForExtraction);
      job.state = 'completed';
      return { ...report, jobId: job.id, extraction: job.extraction };
    } catch (e) {
      job.state = 'failed';
      job.error = isCommandError(e)
        ? e.toJSON()
        : { code: 'internal', message: `the import failed: ${(e as Error)?.message ?? e}` };
      if (!isCommandError(e)) this.engine.log.error('conversation import failed', e);
      throw e;
    } finally {
      job.phase = 'done';
      job.finishedAt = this.engine.clock.now();
      if (request.removeAfter) rmSync(request.from, { force: true });
      if (this.current?.job === job) this.current = null;
    }
  }

  private async extractAfter(
    job: ImportJobState,
    signal: AbortSignal,
    wait: boolean,
  ): Promise<NonNullable<ImportJobState['extraction']>> {
    if (!wait || signal.aborted) {
      this.extraction.kick();
      const pendingSessions = countPendingExtraction(this.engine.db);
      return { waited: false, sessions: 0, failed: 0, pendingSessions, longestTxMs: 0 };
    }
    job.phase = 'extracting';
    let longest = 0;
    const stop = observeWriteTransactions((ms) => void (longest = Math.max(longest, ms)));
    try {
      const r = await this.extraction.drain({
        signal,
        onProgress: (done, total) =>
          this.engine.events.emit('progress', { job: 'extraction', unit: 'sessions', done, total }),
      });
      const longestTxMs = Math.round(longest * 100) / 100;
      return { waited: true, sessions: r.sessions, failed: r.failed, pendingSessions: r.remaining, longestTxMs };
    } finally {
      stop();
    }
  }
}
