import { z } from 'zod';
import { defineCommand } from './define';
import { sessionRecord } from '../schemas';

export const citationCommands = {
  'citations.resolve': defineCommand({
    description:
      "Resolve an opaque citation ref (ref:e:… or ref:m:…, as agents receive for evidence outside their context) to the session and message it cites. The owner's doors only; a ref whose evidence was forgotten, or a forged one, is not found.",
    mutates: false,
    input: () =>
      z
        .object({
          ref: z
            .string()
            .trim()
            .min(1, 'must not be empty')
            .max(100, 'must be at most 100 characters')
            .describe('The citation ref from a recall or search result, e.g. ref:e:2s:AbCdEfGhIjKlMnOp.'),
        })
        .strict(),
    output: () =>
      z.object({
        ref: z.string(),
        sessionId: z.string(),
        messageId: z.string().nullable(),
        session: sessionRecord,
        sessionTitle: z.string().nullable(),
        messageSeq: z.number().int().nullable(),
        messageExcerpt: z.string().nullable(),
      }),
  }),
} as const;
