import { z } from 'zod';
import { defineCommand } from './define';
import { confidence, evidenceRecord, factKind, factRecord, forgetWikiReport, id, scope, scopeRef } from '../schemas';
import { FACT_TEXT_MAX } from '../domain';

export const FACT_SORTS = ['reinforcement', 'confidence', 'recency'] as const;

const forgottenFact = z.object({ id: z.string(), text: z.string(), scope: z.string(), scopeKey: z.string() });

export const factCommands = {
  'facts.list': defineCommand({
    description: 'Browse semantic facts by scope, scope key, kind and text; keyset-paginated.',
    mutates: false,
    input: z
      .object({
        scope: scope.optional(),
        scopeKey: z.string().max(4096).optional(),
        kind: factKind.optional(),
        text: z.string().trim().min(1).max(500).optional(),
        sessionId: id.optional(),
        sort: z.enum(FACT_SORTS).default('reinforcement'),
        cursor: z.string().max(500).optional(),
        limit: z.number().int().min(1).max(500).default(50),
      })
      .strict(),
    output: z.object({ facts: z.array(factRecord), nextCursor: z.string().nullable() }),
  }),
  'facts.get': defineCommand({
    description: 'One fact with its evidence: every supporting session and the message that established it.',
    mutates: false,
    input: z.object({ factId: id }).strict(),
    output: factRecord.extend({ evidence: z.array(evidenceRecord) }),
  }),
  'facts.add': defineCommand({
    description:
      'Record a fact observed in a session, through the same validation and scope coercion as extraction. The session is the evidence.',
    mutates: true,
    input: z
      .object({
        sessionId: id,
        messageId: id.optional(),
        text: z
          .string()
          .transform((t) => t.normalize('NFC').replace(/\s+/gu, ' ').trim())
          .pipe(
            z.string().min(1, 'must not be empty').max(FACT_TEXT_MAX, `must be at most ${FACT_TEXT_MAX} characters`),
          ),
        kind: factKind.default('fact'),
        scope: scope.default('session'),
        confidence: confidence.default('medium'),
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
    input: z.object({ factId: id, dryRun: z.boolean().default(false) }).strict(),
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
    input: z.object({ sessionId: id }).strict(),
    output: z.object({
      sessionId: z.string(),
      ownerSessionId: z.string(),
      visible: z.array(scopeRef),
    }),
  }),
} as const;
