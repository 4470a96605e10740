import { z } from 'zod';
import { defineCommand } from './define';
import { factKind, factRecord, forgetWikiReport, id, scope } from '../schemas';

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
    input: z
      .object({
        sessionId: id,
        /** Narrows to one of the session's own scopes; the key always comes from the session. */
        scope: scope.optional(),
        kind: factKind.optional(),
        text: z.string().trim().min(1).max(500).optional(),
        sort: z.enum(AGENT_FACT_SORTS).default('reinforcement'),
        cursor: z.string().max(500).optional(),
        limit: z.number().int().min(1).max(200).default(20),
      })
      .strict(),
    output: z.object({ facts: z.array(factRecord), nextCursor: z.string().nullable() }),
  }),
  'memory.forget': defineCommand({
    description:
      "Forget one fact this session can see, with all its evidence. A fact outside the session's scopes is reported as not found. With dryRun, only report.",
    mutates: true,
    input: z.object({ sessionId: id, factId: id, dryRun: z.boolean().default(false) }).strict(),
    output: z.object({
      dryRun: z.boolean(),
      fact: z.object({ id: z.string(), text: z.string(), scope, scopeKey: z.string() }),
      evidenceRemoved: z.number().int(),
      /** Only wiki pages this session can see (as memory_search would return them) are listed. */
      wiki: forgetWikiReport,
    }),
  }),
} as const;
