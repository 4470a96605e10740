import { z } from 'zod';
import { defineCommand } from './define';
import { factRecord, forgetWikiReport, id, messageRole, sessionRecord } from '../schemas';

/** Activity lists are short: what an agent reads to catch up, not a browser. */
export const ACTIVITY_LIMIT_MAX = 50;

const forgottenFact = z.object({ id: z.string(), text: z.string(), scope: z.string(), scopeKey: z.string() });

export const agentSessionCommands = {
  'memory.forgetSession': defineCommand({
    description:
      'Forget a session (with its team members and side chats) in two steps. Without confirm nothing changes: the answer says which facts would go, which stay (supported by other sessions) and which wiki pages change, with a confirmToken. Called again with that token, exactly that is forgotten; when memory changed since the dry run the token is refused (conflict) and a new dry run is needed.',
    mutates: true,
    input: () =>
      z
        .object({
          sessionId: id.describe(
            'The session to forget, e.g. one memory_create_session returned or memory_recent_activity listed; its team members and side chats go with it.',
          ),
          confirm: z
            .string()
            .trim()
            .min(1)
            .max(200)
            .optional()
            .describe(
              'The confirmToken from the dry run (valid 10 minutes), e.g. "m1x2k3.Zk9...". Leave it out to get the dry run; give it to forget.',
            ),
        })
        .strict(),
    output: () =>
      z.object({
        dryRun: z.boolean(),
        /** Set on a dry run: pass it back as `confirm` to forget exactly what this answer lists. */
        confirmToken: z.string().nullable(),
        /** When the token stops being accepted (epoch ms). */
        confirmBy: z.number().int().nullable(),
        sessionIds: z.array(z.string()),
        deleted: z.array(forgottenFact),
        kept: z.array(
          forgottenFact.extend({
            reinforcementAfter: z.number().int(),
            handedToLead: z.boolean(),
            /** The other supporting sessions the caller may reach. */
            supportedBy: z.array(z.string()),
            /** Supporting sessions outside the caller's reach: counted, never named. */
            otherSupporters: z.number().int(),
          }),
        ),
        evidenceRemoved: z.number().int(),
        messagesRemoved: z.number().int(),
        wiki: forgetWikiReport,
      }),
  }),
  'memory.activity': defineCommand({
    description:
      "What happened lately in this session's context: the most recently active sessions sharing its project, workspace or folder (with their last message) and the facts most recently added or changed in its scopes. Only sessions and facts the caller may reach.",
    mutates: false,
    input: () =>
      z
        .object({
          sessionId: id
            .optional()
            .describe(
              "The calling session: activity of its context. Without it, everything the caller's connection reaches.",
            ),
          limit: z
            .number()
            .int()
            .min(1)
            .max(ACTIVITY_LIMIT_MAX)
            .default(10)
            .describe(`Sessions and facts listed (each), 1 to ${ACTIVITY_LIMIT_MAX}.`),
        })
        .strict(),
    output: () =>
      z.object({
        sessions: z.array(
          sessionRecord.extend({
            messageCount: z.number().int(),
            lastMessage: z.object({ role: messageRole, at: z.number().int(), preview: z.string() }).nullable(),
          }),
        ),
        facts: z.array(factRecord),
      }),
  }),
} as const;
