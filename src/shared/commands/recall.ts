import { z } from 'zod';
import { defineCommand } from './define';
import { confidence, factKind, id, scope } from '../schemas';

export const recalledFact = z.object({
  id: z.string(),
  text: z.string(),
  kind: factKind,
  scope,
  scopeKey: z.string(),
  confidence,
  reinforcement: z.number().int(),
  score: z.number(),
  coverage: z.number(),
  matched: z.array(z.string()),
  citation: z.object({ sessionId: z.string().nullable(), messageId: z.string().nullable() }),
});

export const recallResult = z.object({
  facts: z.array(recalledFact),
  /** The JSONL facts inside the untrusted-data boundary, or null when nothing is recalled. */
  block: z.string().nullable(),
  abstained: z.boolean(),
});

export const searchSource = z.enum(['facts', 'wiki', 'dialogue']);

export const searchHit = z.object({
  source: z.enum(['fact', 'wiki', 'dialogue']),
  ref: z.string(),
  title: z.string(),
  snippet: z.string(),
  score: z.number(),
  citation: z.object({
    sessionId: z.string().optional(),
    messageId: z.string().optional(),
    path: z.string().optional(),
  }),
  date: z
    .string()
    .optional()
    .describe('Dialogue hits: when the message was written (ISO-8601, UTC), so "when" questions can be answered.'),
});

const queryText = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const recallCommands = {
  'memory.recall': defineCommand({
    description:
      "Automatic recall for a request: at most three of the session's scoped semantic facts, as cited JSONL inside an untrusted-data boundary. Abstains on generic or single-word prompts.",
    mutates: false,
    input: z.object({ sessionId: id, text: queryText(100_000) }).strict(),
    output: recallResult.extend({ reason: z.string().nullable() }),
  }),
  'memory.search': defineCommand({
    description:
      'memory_search: scoped facts, the legacy Markdown wiki pages and scoped dialogue evidence, ranked, with source type, citation and snippet.',
    mutates: false,
    input: z
      .object({
        sessionId: id,
        query: queryText(2000),
        limit: z.number().int().min(1).max(20).default(8),
        sources: z.array(searchSource).min(1).default(['facts', 'wiki', 'dialogue']),
      })
      .strict(),
    output: z.object({ results: z.array(searchHit) }),
  }),
} as const;
