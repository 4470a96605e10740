import { z } from 'zod';
import { defineCommand } from './define';
import { epochMs, id, localPath } from '../schemas';

const cursorStatus = z.object({
  sessionId: z.string(),
  title: z.string().nullable(),
  status: z.enum(['idle', 'processing', 'failed', 'never-run']),
  /** Last message seq covered by a successful run. */
  cursorSeq: z.number().int(),
  completedResponses: z.number().int(),
  lastResponseCount: z.number().int(),
  due: z.boolean(),
  pendingMessages: z.number().int(),
  leaseOwner: z.string().nullable(),
  leaseExpiresAt: epochMs.nullable(),
  leaseLive: z.boolean(),
  attempts: z.number().int(),
  consecutiveFailures: z.number().int(),
  lastError: z.string().nullable(),
  nextAttemptAt: epochMs.nullable(),
  factsStored: z.number().int(),
  candidatesRejected: z.number().int(),
  lastSuccessAt: epochMs.nullable(),
  lastExtractor: z.string().nullable(),
  updatedAt: epochMs,
});

const refusal = z.union([
  z.object({ refused: z.literal('lease-held'), leaseOwner: z.string().nullable(), leaseExpiresAt: epochMs.nullable() }),
  z.object({ refused: z.literal('not-due'), responseCount: z.number().int(), lastResponseCount: z.number().int() }),
  z.object({ refused: z.literal('backoff'), nextAttemptAt: epochMs }),
]);

const runResult = z.object({
  sessionId: z.string(),
  outcome: z.enum(['stored', 'nothing-new', 'failed', 'refused']),
  refusal: refusal.nullable(),
  extractor: z.string(),
  windows: z.number().int(),
  messagesRead: z.number().int(),
  candidates: z.number().int(),
  factsStored: z.number().int(),
  factsCreated: z.number().int(),
  factsReinforced: z.number().int(),
  rejected: z.number().int(),
  rejections: z.record(z.string(), z.number().int()),
  fromSeq: z.number().int(),
  cursorSeq: z.number().int(),
  behind: z.boolean(),
  error: z.string().nullable(),
});

export const extractionCommands = {
  'extraction.status': defineCommand({
    description:
      "Every top-level session's extraction cursor: status, covered responses, lease, attempts, last error and next attempt.",
    mutates: false,
    input: () =>
      z
        .object({
          sessionId: id.optional().describe('Only this top-level session; every one when absent.'),
          limit: z.number().int().min(1).max(1000).default(200).describe('Sessions listed, 1 to 1000.'),
        })
        .strict(),
    output: () => z.object({ extractor: z.string(), sessions: z.array(cursorStatus) }),
  }),
  'extraction.run': defineCommand({
    description:
      'Extract now from the messages after the cursor, whatever the cadence: claims the lease (refused while another run holds it), stores facts with evidence and advances the cursor, or records the failure.',
    mutates: true,
    input: () => z.object({ sessionId: id.describe('The top-level session to extract from.') }).strict(),
    output: () => runResult,
  }),
  'extraction.retry': defineCommand({
    description: 'Make a failed extraction cursor due now and run it.',
    mutates: true,
    input: () =>
      z.object({ sessionId: id.describe('The top-level session whose failed extraction to retry.') }).strict(),
    output: () => runResult,
  }),
  'import.legacy': defineCommand({
    description:
      'Import historical extraction-note projections (Markdown bullets per source session) as local facts with evidence. Idempotent; a sentinel stops reruns unless force.',
    mutates: true,
    input: () =>
      z
        .object({
          from: localPath()
            .optional()
            .describe('Folder of legacy notes (*.md), e.g. "~/old-home/wiki/notes"; default <home>/wiki/notes.'),
          force: z.boolean().default(false).describe('Import again although the sentinel says it was done.'),
        })
        .strict(),
    output: () =>
      z.object({
        skipped: z.boolean(),
        source: z.string(),
        files: z.number().int(),
        bullets: z.number().int(),
        sessions: z.number().int(),
        sessionsAlreadyImported: z.number().int(),
        sessionsMissing: z.number().int(),
        facts: z.number().int(),
        factsCreated: z.number().int(),
        evidenceCreated: z.number().int(),
        rejected: z.number().int(),
        interrupted: z.boolean(),
        sentinel: z.string().nullable(),
        transactions: z.number().int(),
        p99TxMs: z.number(),
        longestTxMs: z.number(),
        durationMs: z.number(),
      }),
  }),
} as const;
