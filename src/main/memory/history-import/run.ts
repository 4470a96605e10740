import { performance } from 'node:perf_hooks';
import { writeTx, type Db } from '../../store/db';
import { paceCheckpoints, type CheckpointPacer } from '../../store/checkpoint-pacer';
import { invalid } from '../../../shared/errors';
import { readConversations, resolveImportFiles, type ImportFile, type ImportItem } from './source';
import { ConversationWriter, planConversation, type WriteOutcome, type WriterDeps } from './writer';
import { ImportInputError, type ImportContext, type ImportFormat, type ImportSource } from './types';

/** At most this many problems are listed in a report (all are counted). */
export const PROBLEMS_LISTED = 100;

export interface ImportProblem {
  file: string;
  position: string;
  conversationId: string | null;
  reason: string;
}

export interface ConversationImportReport {
  files: string[];
  format: ImportSource | null;
  bytes: number;
  conversations: number;
  conversationsCreated: number;
  conversationsUpdated: number;
  conversationsUnchanged: number;
  conversationsSkipped: number;
  messagesAdded: number;
  messagesAlreadyImported: number;
  messagesSkipped: number;
  messagesTruncated: number;
  timesAdjusted: number;
  problems: ImportProblem[];
  problemCount: number;
  /** Stopped early (shutdown); importing the same file again continues. */
  interrupted: boolean;
  transactions: number;
  p99TxMs: number;
  longestTxMs: number;
  durationMs: number;
}

export interface ImportProgress {
  bytesRead: number;
  bytesTotal: number;
  conversations: number;
  messagesAdded: number;
}

export interface ConversationImportOptions {
  from: string;
  format: ImportFormat;
  context: ImportContext;
  /** Shown instead of the file's path in the report and errors (an uploaded file's own name). */
  displayName?: string;
  signal?: AbortSignal;
  onProgress?(p: ImportProgress): void;
  /** After each conversation with something new is committed (crash tests count them). */
  onConversation?(index: number, outcome: WriteOutcome): void;
  /** Read size for the file (tests cut files into tiny chunks). */
  chunkBytes?: number;
}

export interface ImportDeps {
  db: Db;
  now(): number;
  newId(): string;
  maxFileBytes: number;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const round = (ms: number | undefined) => Math.round((ms ?? 0) * 100) / 100;

function emptyReport(files: ImportFile[], shown: (f: string) => string): ConversationImportReport {
  return {
    files: files.map((f) => shown(f.path)),
    format: null,
    bytes: files.reduce((n, f) => n + f.bytes, 0),
    conversations: 0,
    conversationsCreated: 0,
    conversationsUpdated: 0,
    conversationsUnchanged: 0,
    conversationsSkipped: 0,
    messagesAdded: 0,
    messagesAlreadyImported: 0,
    messagesSkipped: 0,
    messagesTruncated: 0,
    timesAdjusted: 0,
    problems: [],
    problemCount: 0,
    interrupted: false,
    transactions: 0,
    p99TxMs: 0,
    longestTxMs: 0,
    durationMs: 0,
  };
}

function count(report: ConversationImportReport, outcome: WriteOutcome): void {
  if (outcome.state === 'created') report.conversationsCreated++;
  else if (outcome.state === 'updated') report.conversationsUpdated++;
  else report.conversationsUnchanged++;
  report.messagesAdded += outcome.added;
  report.messagesAlreadyImported += outcome.alreadyImported;
  report.timesAdjusted += outcome.timesAdjusted;
  report.messagesTruncated += outcome.truncated;
}

function problem(report: ConversationImportReport, p: ImportProblem): void {
  report.conversationsSkipped++;
  report.problemCount++;
  if (report.problems.length < PROBLEMS_LISTED) report.problems.push(p);
}

function timedWriter(deps: ImportDeps, durations: number[], pacer: CheckpointPacer): WriterDeps {
  return {
    db: deps.db,
    now: deps.now,
    newId: deps.newId,
    tx: <T>(fn: () => T): T => {
      const t0 = performance.now();
      try {
        return writeTx(deps.db, fn);
      } finally {
        durations.push(performance.now() - t0);
        pacer.step();
      }
    },
    pause: yieldToEventLoop,
  };
}

/** One item of the file: planned and handed to the writer, or counted as a problem. */
async function importItem(
  writer: ConversationWriter,
  deps: WriterDeps,
  report: ConversationImportReport,
  item: ImportItem,
  file: string,
): Promise<void> {
  report.conversations++;
  if (!item.ok) return problem(report, { file, ...item });
  const c = item.conversation;
  report.messagesSkipped += c.skippedMessages;
  if (c.messages.length === 0) {
    return problem(report, {
      file,
      position: c.position,
      conversationId: c.originalId,
      reason: 'has no user or assistant messages with text; nothing to import',
    });
  }
  const plan = planConversation(deps, c);
  if (plan) return writer.add(plan);
  report.conversationsUnchanged++;
  report.messagesAlreadyImported += c.messages.length;
}

/**
 * Imports ChatGPT or Claude data exports and JSONL transcripts: streamed one conversation at a
 * time, written in short transactions (see ConversationWriter), idempotent per conversation
 * and message. A conversation that cannot be imported is skipped whole and reported with its
 * position; a file that cannot be read as a whole (not JSON, not an export, cut short, too large)
 * stops the import with an error naming the file and the byte offset or line, after the
 * conversations before that point have been imported.
 */
export async function importConversations(
  deps: ImportDeps,
  options: ConversationImportOptions,
): Promise<ConversationImportReport> {
  const started = performance.now();
  const shown = (file: string) => options.displayName ?? file;
  let files: ImportFile[];
  try {
    files = resolveImportFiles(options.from, deps.maxFileBytes);
  } catch (e) {
    throw asCommandError(e, shown);
  }
  const report = emptyReport(files, shown);
  const durations: number[] = [];
  const pacer = paceCheckpoints(deps.db);
  const writerDeps = timedWriter(deps, durations, pacer);
  let index = 0;
  const writer = new ConversationWriter(writerDeps, options.context, (_plan, outcome) => {
    count(report, outcome);
    options.onConversation?.(index++, outcome);
  });
  let bytesBefore = 0;
  try {
    for (const file of files) {
      let fileBytes = 0;
      const items = readConversations(file.path, options.format, {
        signal: options.signal,
        chunkBytes: options.chunkBytes,
        onBytes: (n) => (fileBytes = n),
        onFormat: (f) => void (report.format ??= f),
      });
      for await (const item of items) {
        if (options.signal?.aborted) break;
        await importItem(writer, writerDeps, report, item, shown(file.path));
        options.onProgress?.({
          bytesRead: bytesBefore + fileBytes,
          bytesTotal: report.bytes,
          conversations: report.conversations,
          messagesAdded: report.messagesAdded,
        });
        await yieldToEventLoop();
      }
      report.interrupted = !!options.signal?.aborted;
      if (report.interrupted) break;
      bytesBefore += file.bytes;
    }
    writer.flush();
  } catch (e) {
    // What was read whole before a broken part of the file is imported all the same.
    writer.flush();
    throw asCommandError(e, shown);
  } finally {
    pacer.done();
  }
  durations.sort((x, y) => x - y);
  report.transactions = durations.length;
  report.longestTxMs = round(durations[durations.length - 1]);
  report.p99TxMs = round(durations[Math.floor(durations.length * 0.99)]);
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

/** A file-level input error as the contract's error, naming `from`, the file and the position. */
function asCommandError(e: unknown, shown: (file: string) => string): unknown {
  if (!(e instanceof ImportInputError)) return e;
  return invalid('from', `${shown(e.file)}: ${e.position}: ${e.reason}`);
}
