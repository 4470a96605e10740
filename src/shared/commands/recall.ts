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
  /**
   * The evidence the fact is cited with. `ref` is opaque (the owner resolves it with
   * citations.resolve); an agent connection gets sessionId and messageId only for sessions it
   * may reach, null otherwise.
   */
  citation: z.object({
    sessionId: z.string().nullable(),
    messageId: z.string().nullable(),
    ref: z.string().nullable(),
  }),
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
  /** As for recalled facts: sessionId and messageId only where the caller may reach the session, ref always. */
  citation: z.object({
    sessionId: z.string().optional(),
    messageId: z.string().optional(),
    ref: z.string().optional(),
    scope: scope.optional(),
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
    input: () =>
      z
        .object({
          sessionId: id.describe('The session asking; only facts in its scopes are recalled.'),
          text: queryText(100_000).describe('The request to recall for, e.g. "how do we deploy the billing service?".'),
        })
        .strict(),
    output: () => recallResult.extend({ reason: z.string().nullable() }),
  }),
  'memory.search': defineCommand({
    description:
      'memory_search: scoped facts, the legacy Markdown wiki pages and scoped dialogue evidence, ranked, with source type, citation and snippet. In facts, a word no visible fact holds matches the word it begins or one that begins it (postgres finds PostgreSQL, deployment finds deploy).',
    mutates: false,
    input: () =>
      z
        .object({
          sessionId: id.describe(
            'The session searching; facts, pages and dialogue outside its scopes are never returned.',
          ),
          query: queryText(2000).describe('What to look for, e.g. "why did we pick postgres".'),
          limit: z.number().int().min(1).max(20).default(8).describe('Results, 1 to 20.'),
          sources: z
            .array(searchSource)
            .min(1)
            .default(['facts', 'wiki', 'dialogue'])
            .describe(`Where to search, any of: ${searchSource.options.join(', ')}, e.g. ["facts","wiki"].`)
            .meta({ examples: [['facts', 'wiki'], ['dialogue']] }),
        })
        .strict(),
    output: () => z.object({ results: z.array(searchHit) }),
  }),
} as const;
