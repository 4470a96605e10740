import { z } from 'zod';
import { defineCommand } from './define';
import { epochMs, id, localPath } from '../schemas';

export const IMPORT_FORMAT_NAMES = ['auto', 'chatgpt', 'claude', 'jsonl'] as const;
export const IMPORT_SOURCE_NAMES = ['chatgpt', 'claude', 'jsonl'] as const;

/** The context every imported conversation gets (a JSONL line may name its own). */
export const importContextFields = {
  projectId: id
    .optional()
    .describe('Coding project id for every imported conversation, e.g. "my-app"; none by default.'),
  workspace: localPath()
    .optional()
    .describe('Workspace path for every imported conversation, e.g. "/home/me/src/my-app" (normalized).'),
  folderId: id.optional().describe('Work folder id for every imported conversation, e.g. "personal".'),
};

export const importFormat = z
  .enum(IMPORT_FORMAT_NAMES)
  .default('auto')
  .describe('chatgpt, claude or jsonl; auto (the default) tells them apart by their content.');

const problem = z.object({
  file: z.string(),
  /** `conversation 12 (byte 40960)`, `line 7`, `lines 3-9`. */
  position: z.string(),
  conversationId: z.string().nullable(),
  reason: z.string(),
});

export const importReport = z.object({
  files: z.array(z.string()),
  format: z.enum(IMPORT_SOURCE_NAMES).nullable(),
  bytes: z.number().int(),
  conversations: z.number().int(),
  conversationsCreated: z.number().int(),
  conversationsUpdated: z.number().int(),
  conversationsUnchanged: z.number().int(),
  conversationsSkipped: z.number().int(),
  messagesAdded: z.number().int(),
  messagesAlreadyImported: z.number().int(),
  messagesSkipped: z.number().int(),
  messagesTruncated: z.number().int(),
  timesAdjusted: z.number().int(),
  problems: z.array(problem),
  problemCount: z.number().int(),
  interrupted: z.boolean(),
  transactions: z.number().int(),
  p99TxMs: z.number(),
  longestTxMs: z.number(),
  durationMs: z.number(),
});

const extractionAfterImport = z.object({
  /** The command waited for extraction over the imported sessions. */
  waited: z.boolean(),
  /** Sessions extraction caught up with while the command waited. */
  sessions: z.number().int(),
  failed: z.number().int(),
  /** Imported sessions extraction still owes (in the background of the app or `serve`). */
  pendingSessions: z.number().int(),
  /** The longest write transaction of this process while the command waited (ms); 0 when it did not. */
  longestTxMs: z.number(),
});

const jobError = z.object({ code: z.string(), message: z.string(), field: z.string().optional() });

export const importJob = z.object({
  id: z.string(),
  /** The file as the person named it (an upload's own file name). */
  file: z.string(),
  state: z.enum(['running', 'completed', 'failed']),
  phase: z.enum(['importing', 'extracting', 'done']),
  bytesRead: z.number().int(),
  bytesTotal: z.number().int(),
  conversations: z.number().int(),
  messagesAdded: z.number().int(),
  startedAt: epochMs,
  finishedAt: epochMs.nullable(),
  report: importReport.nullable(),
  extraction: extractionAfterImport.nullable(),
  error: jobError.nullable(),
});

export const historyImportCommands = {
  'import.conversations': defineCommand({
    description:
      'Import ChatGPT or Claude data exports (conversations.json) or JSONL transcripts: each conversation becomes one top-level session with its real times, marked with its source and original id. Importing again adds only new conversations and messages. Extraction then runs over them in the background.',
    mutates: true,
    input: () =>
      z
        .object({
          from: localPath().describe(
            'The export: a conversations.json, a .jsonl transcript, or the unpacked export folder, e.g. "~/Downloads/chatgpt-export".',
          ),
          format: importFormat,
          ...importContextFields,
          waitForExtraction: z
            .boolean()
            .default(false)
            .describe(
              'Return only after extraction has run over the imported sessions (else it runs in the background).',
            ),
        })
        .strict(),
    output: () => importReport.extend({ jobId: z.string(), extraction: extractionAfterImport }),
  }),
  'import.status': defineCommand({
    description:
      'Imports of this process (running and recent) with their progress and summaries, and how many imported sessions extraction still owes.',
    mutates: false,
    input: () => z.object({}).strict(),
    output: () =>
      z.object({
        jobs: z.array(importJob),
        extraction: z.object({
          pendingSessions: z.number().int(),
          runningSessions: z.number().int(),
          background: z.boolean(),
        }),
      }),
  }),
} as const;
