import { z } from 'zod';
import { defineCommand } from './define';
import { fieldHelp } from './field-help';
import { confidence, evidenceRecord, factKind, factRecord, forgetWikiReport, id, scope, scopeRef } from '../schemas';
import { FACT_KINDS, FACT_TEXT_MAX, SCOPES } from '../domain';

export const FACT_SORTS = ['reinforcement', 'confidence', 'recency'] as const;

const forgottenFact = z.object({ id: z.string(), text: z.string(), scope: z.string(), scopeKey: z.string() });

export const factCommands = {
  'facts.list': defineCommand({
    description: 'Browse semantic facts by scope, scope key, kind and text; keyset-paginated.',
    mutates: false,
    input: z
      .object({
        scope: scope.optional().describe(`Only facts of this scope: ${SCOPES.join(', ')}.`),
        scopeKey: z
          .string()
          .max(4096)
          .optional()
          .describe(
            'With scope: the key within it, e.g. a project id ("my-app"), a workspace path, a folder id or a session id.',
          ),
        kind: factKind.optional().describe(`Only facts of this kind: ${FACT_KINDS.join(', ')}.`),
        text: z.string().trim().min(1).max(500).optional().describe(fieldHelp.factText),
        sessionId: id.optional().describe('Only facts this session is evidence for.'),
        sort: z
          .enum(FACT_SORTS)
          .default('reinforcement')
          .describe(`Order: ${FACT_SORTS.join(', ')} (highest or newest first).`),
        cursor: z.string().max(500).optional().describe(fieldHelp.cursor),
        limit: z.number().int().min(1).max(500).default(50).describe('Facts per page, 1 to 500.'),
      })
      .strict(),
    output: z.object({ facts: z.array(factRecord), nextCursor: z.string().nullable() }),
  }),
  'facts.get': defineCommand({
    description: 'One fact with its evidence: every supporting session and the message that established it.',
    mutates: false,
    input: z.object({ factId: id.describe('The fact to show.') }).strict(),
    output: factRecord.extend({ evidence: z.array(evidenceRecord) }),
  }),
  'facts.add': defineCommand({
    description:
      'Record a fact observed in a session, through the same validation and scope coercion as extraction. The session is the evidence.',
    mutates: true,
    input: z
      .object({
        sessionId: id.describe('The session that observed the fact; it becomes the evidence.'),
        messageId: id.optional().describe("The session's message that states the fact, cited as its evidence."),
        text: z
          .string()
          .transform((t) => t.normalize('NFC').replace(/\s+/gu, ' ').trim())
          .pipe(
            z.string().min(1, 'must not be empty').max(FACT_TEXT_MAX, `must be at most ${FACT_TEXT_MAX} characters`),
          )
          .describe(
            `The fact, one short statement (at most ${FACT_TEXT_MAX} characters), e.g. "We deploy with Docker Compose".`,
          ),
        kind: factKind.default('fact').describe(fieldHelp.kind),
        scope: scope
          .default('session')
          .describe(`${fieldHelp.scope} Coerced to one the session may write; user only for preference and profile.`),
        confidence: confidence.default('medium').describe(fieldHelp.confidence),
      })
      .strict(),
    output: z.object({
      fact: factRecord,
      created: z.boolean(),
      reinforced: z.boolean(),
      unchanged: z.boolean(),
    }),
  }),
  'facts.delete': defineCommand({
    description: 'Forget one fact and its evidence. With dryRun, only report.',
    mutates: true,
    input: z
      .object({
        factId: id.describe('The fact to forget.'),
        dryRun: z.boolean().default(false).describe(fieldHelp.dryRun),
      })
      .strict(),
    output: z.object({
      dryRun: z.boolean(),
      fact: forgottenFact,
      evidenceRemoved: z.number().int(),
      wiki: forgetWikiReport,
    }),
  }),
  'scopes.resolve': defineCommand({
    description: 'The scopes a session sees (most specific first) and where its writes land.',
    mutates: false,
    input: z.object({ sessionId: id.describe('The session whose scopes to show.') }).strict(),
    output: z.object({
      sessionId: z.string(),
      ownerSessionId: z.string(),
      visible: z.array(scopeRef),
    }),
  }),
} as const;
