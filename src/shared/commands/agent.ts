import { z } from 'zod';
import { defineCommand } from './define';
import { fieldHelp } from './field-help';
import { factKind, factRecord, forgetWikiReport, id, scope } from '../schemas';
import { FACT_KINDS, SCOPES } from '../domain';

/**
 * Commands for agents (MCP and HTTP companions). Each is confined to the caller's session:
 * it sees and changes only facts in that session's visible scopes, whatever other ids it is
 * given, so one project's agent cannot read or forget another project's memory.
 */
/** Orders an agent can page by; each is an index walk per visible scope. */
export const AGENT_FACT_SORTS = ['reinforcement', 'recency'] as const;

export const agentCommands = {
  'memory.facts': defineCommand({
    description:
      'List the semantic facts this session can see (its session, folder, workspace, project and user scopes). Facts of other projects, workspaces, folders and sessions are never listed.',
    mutates: false,
    input: () =>
      z
        .object({
          sessionId: id.describe('The calling session; only facts in its scopes are listed.'),
          /** Narrows to one of the session's own scopes; the key always comes from the session. */
          scope: scope
            .optional()
            .describe(`Only one of the session's own scopes: ${SCOPES.join(', ')} (the key comes from the session).`)
            .meta({ examples: ['project'] }),
          kind: factKind
            .optional()
            .describe(`Only facts of this kind: ${FACT_KINDS.join(', ')}.`)
            .meta({ examples: ['convention'] }),
          text: z.string().trim().min(1).max(500).optional().describe(fieldHelp.factText),
          sort: z
            .enum(AGENT_FACT_SORTS)
            .default('reinforcement')
            .describe(`Order: ${AGENT_FACT_SORTS.join(', ')} (highest or newest first).`),
          cursor: z.string().max(500).optional().describe(fieldHelp.cursor),
          limit: z.number().int().min(1).max(200).default(20).describe('Facts per page, 1 to 200.'),
        })
        .strict(),
    output: () => z.object({ facts: z.array(factRecord), nextCursor: z.string().nullable() }),
  }),
  'memory.forget': defineCommand({
    description:
      "Forget one fact this session can see, with all its evidence. A fact outside the session's scopes is reported as not found. With dryRun, only report.",
    mutates: true,
    input: () =>
      z
        .object({
          sessionId: id.describe('The calling session; only a fact in its scopes can be forgotten.'),
          factId: id.describe('The fact to forget, e.g. an id from memory_list_facts or a recall citation.'),
          dryRun: z.boolean().default(false).describe(fieldHelp.dryRun),
        })
        .strict(),
    output: () =>
      z.object({
        dryRun: z.boolean(),
        fact: z.object({ id: z.string(), text: z.string(), scope, scopeKey: z.string() }),
        evidenceRemoved: z.number().int(),
        /** Only wiki pages this session can see (as memory_search would return them) are listed. */
        wiki: forgetWikiReport,
      }),
  }),
} as const;
