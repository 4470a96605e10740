import { z } from 'zod';
import { defineCommand } from './define';
import { id, messageRecord } from '../schemas';
import { recallResult } from './recall';

/** Whether automatic recall ran: `degraded` when it failed and the turn went on without memory. */
export const recallStatus = z.object({
  status: z.enum(['ok', 'degraded']),
  reason: z.string().nullable(),
});

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

export const turnCommands = {
  'turns.begin': defineCommand({
    description:
      'Start a turn: persist the user message, recall scoped facts (persisted as a hidden row right after it), load the session window and USER.md as bounded profile data, and return the labelled context for the model.',
    mutates: true,
    input: () =>
      z
        .object({
          sessionId: id.describe('The session the turn belongs to.'),
          userText: text(1_000_000)
            .refine((t) => t.trim().length > 0, 'must not be empty')
            .describe("The user's message, word for word."),
        })
        .strict(),
    output: () =>
      z.object({
        userMessage: messageRecord,
        recallStatus: recallStatus,
        context: z.object({
          window: z.array(messageRecord),
          userProfile: z.string().nullable(),
          recall: recallResult,
          block: z.string(),
        }),
      }),
  }),
  'turns.complete': defineCommand({
    description:
      "Finish a turn: persist tool-call rounds (not completed responses) and tool outputs, the final response and the agent loop's checkpoint; a top-level session's response counts toward extraction.",
    mutates: true,
    input: () =>
      z
        .object({
          sessionId: id.describe('The session the turn belongs to.'),
          assistantText: text(1_000_000)
            .refine((t) => t.trim().length > 0, 'must not be empty')
            .describe('The final response, word for word.'),
          toolRounds: z
            .array(
              z
                .object({
                  content: text(1_000_000).describe('What the assistant said or called in this round.'),
                  toolOutputs: z
                    .array(text(1_000_000))
                    .max(100)
                    .optional()
                    .describe('The outputs of the tools it called, in order.'),
                })
                .strict(),
            )
            .max(200)
            .optional()
            .describe(
              'The tool-call rounds before the response, as JSON, e.g. [{"content":"calling search","toolOutputs":["3 hits"]}].',
            ),
          checkpoint: z
            .json()
            .optional()
            .refine((v) => v === undefined || JSON.stringify(v).length <= 10_000_000, 'must be at most 10 MB as JSON')
            .describe('The agent loop state to resume from, any JSON, e.g. {"step":3,"plan":["test"]}; latest wins.')
            .meta({ examples: [{ step: 3, plan: ['test'] }] }),
        })
        .strict(),
    output: () => z.object({ assistantMessage: messageRecord, completedResponses: z.number().int() }),
  }),
  'turns.compact': defineCommand({
    description:
      'Compact the context: replace provider-visible turns before the last few with one durable summary (built-in, or the configured model). Every original message stays in the audit history.',
    mutates: true,
    input: () =>
      z
        .object({
          sessionId: id.describe('The session to compact.'),
          keepLastTurns: z
            .number()
            .int()
            .min(1)
            .max(100)
            .optional()
            .describe('Turns kept word for word, 1 to 100; default 3 (2 in a Coding session).'),
        })
        .strict(),
    output: () =>
      z.object({
        summary: messageRecord.nullable(),
        compactedMessages: z.number().int(),
        summarizer: z.enum(['built-in', 'model']).nullable(),
      }),
  }),
  'turns.checkpoint': defineCommand({
    description: "The agent loop's latest checkpoint for a session (null when none was stored).",
    mutates: false,
    input: () => z.object({ sessionId: id.describe('The session whose checkpoint to read.') }).strict(),
    output: () => z.object({ checkpoint: z.json().nullable(), updatedAt: z.number().int().nullable() }),
  }),
} as const;
