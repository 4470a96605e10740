import { z } from 'zod';
import { defineCommand } from './define';
import { fieldHelp } from './field-help';
import {
  forgetWikiReport,
  id,
  localPath,
  messageRecord,
  messageRole,
  pastTime,
  sessionKind,
  sessionRecord,
} from '../schemas';

const limit = (max: number, dflt: number) => z.number().int().min(1).max(max).default(dflt);

export const sessionCommands = {
  'sessions.create': defineCommand({
    description:
      'Create a session. Top-level sessions carry their Coding project, workspace path and Work folder; team members and side chats name their parent and share its context.',
    mutates: true,
    input: () =>
      z
        .object({
          id: id.optional().describe('Id for the new session instead of a generated one; refused when it exists.'),
          kind: sessionKind
            .default('top-level')
            .describe('top-level, team-member or side-chat; the last two name their parent and share its context.'),
          parentSessionId: id
            .optional()
            .describe('The lead session of a team member or side chat (its project, workspace and folder are used).'),
          projectId: id.optional().describe('Coding project id, e.g. "my-app": the project scope, fixed at creation.'),
          workspace: localPath()
            .optional()
            .describe('Absolute workspace path, e.g. "/home/me/src/my-app" (normalized): the workspace scope.'),
          folderId: id.optional().describe('Work folder id, e.g. "research": the folder scope, fixed at creation.'),
          title: z.string().trim().max(500).optional().describe('A title people see in lists, e.g. "Billing kickoff".'),
          agentName: z
            .string()
            .trim()
            .max(100)
            .optional()
            .describe('The agent running the session, e.g. "claude-code"; sessions of "dream" are never consolidated.'),
          /** When the conversation really started, for sessions loaded from history; default now. */
          createdAt: pastTime.optional().describe(fieldHelp.createdAt),
        })
        .strict(),
    output: () => sessionRecord,
  }),
  'sessions.list': defineCommand({
    description: 'List sessions, newest first, keyset-paginated.',
    mutates: false,
    input: () =>
      z
        .object({
          kind: sessionKind.optional().describe('Only sessions of this kind: top-level, team-member or side-chat.'),
          projectId: id.optional().describe('Only sessions of this Coding project, e.g. "my-app".'),
          workspace: localPath()
            .optional()
            .describe('Only sessions on this workspace path, e.g. "/home/me/src/my-app".'),
          folderId: id.optional().describe('Only sessions in this Work folder, e.g. "research".'),
          cursor: z.string().max(500).optional().describe(fieldHelp.cursor),
          limit: limit(500, 50).describe('Sessions per page, 1 to 500.'),
        })
        .strict(),
    output: () =>
      z.object({
        sessions: z.array(sessionRecord.extend({ messageCount: z.number().int() })),
        nextCursor: z.string().nullable(),
      }),
  }),
  'sessions.get': defineCommand({
    description: 'One session with its counts and direct children.',
    mutates: false,
    input: () => z.object({ sessionId: id.describe('The session to show.') }).strict(),
    output: () =>
      sessionRecord.extend({
        messageCount: z.number().int(),
        factCount: z.number().int(),
        children: z.array(sessionRecord),
        /** Set on a session `import conversations` created: where the conversation came from. */
        importedFrom: z
          .object({
            source: z.enum(['chatgpt', 'claude', 'jsonl']),
            conversationId: z.string(),
            importedAt: z.number().int(),
          })
          .nullable(),
      }),
  }),
  'sessions.delete': defineCommand({
    description:
      'Forget a session (and its team members and side chats): its evidence goes first, then every fact no other session supports. With dryRun, report exactly what would go and what would stay.',
    mutates: true,
    input: () =>
      z
        .object({
          sessionId: id.describe('The session to forget, with its team members and side chats.'),
          dryRun: z.boolean().default(false).describe('Only report what would be forgotten and what would stay.'),
        })
        .strict(),
    output: () =>
      z.object({
        dryRun: z.boolean(),
        sessionIds: z.array(z.string()),
        deleted: z.array(z.object({ id: z.string(), text: z.string(), scope: z.string(), scopeKey: z.string() })),
        kept: z.array(
          z.object({
            id: z.string(),
            text: z.string(),
            scope: z.string(),
            scopeKey: z.string(),
            supportedBy: z.array(z.string()),
            reinforcementAfter: z.number().int(),
            /** Forgetting only a team member or side chat: its lead takes over the evidence. */
            handedToLead: z.boolean(),
          }),
        ),
        evidenceRemoved: z.number().int(),
        messagesRemoved: z.number().int(),
        wiki: forgetWikiReport,
      }),
  }),
  'messages.add': defineCommand({
    description:
      'Append a message to a session transcript. Flags mark hidden copies, side-chat source context, tool-call rounds and synthetic rows.',
    mutates: true,
    input: () =>
      z
        .object({
          sessionId: id.describe('The session whose transcript gets the message.'),
          role: messageRole.describe('Who wrote it: user, assistant, tool or system.'),
          content: z.string().max(1_000_000).describe('The message text (at most 1,000,000 characters).'),
          hidden: z.boolean().default(false).describe('Keep it out of the visible transcript (kept for audit).'),
          sideChatContext: z
            .boolean()
            .default(false)
            .describe("A copy of the parent session's context given to a side chat; never extracted."),
          toolCallRound: z
            .boolean()
            .default(false)
            .describe('An assistant tool-call round, not a completed response (content may be empty).'),
          systemGenerated: z
            .boolean()
            .default(false)
            .describe('Written by the program, not a person or the model; never extracted.'),
          /**
           * When the message was really written, for conversations loaded from history; default now.
           * Never in the future, never before the session's previous message.
           */
          createdAt: pastTime.optional().describe(`${fieldHelp.createdAt} Not before the previous message.`),
        })
        .strict()
        .refine((m) => !m.toolCallRound || m.role === 'assistant', {
          message: 'only assistant messages can be tool-call rounds',
          path: ['toolCallRound'],
        })
        .refine((m) => m.toolCallRound || m.content.trim().length > 0, {
          message: 'must not be empty',
          path: ['content'],
        }),
    output: () => messageRecord,
  }),
  'messages.list': defineCommand({
    description: 'A session transcript in order; hidden rows only when asked for.',
    mutates: false,
    input: () =>
      z
        .object({
          sessionId: id.describe('The session whose transcript to read.'),
          includeHidden: z
            .boolean()
            .default(false)
            .describe('Also list hidden rows (recall blocks, side-chat copies).'),
          afterSeq: z
            .number()
            .int()
            .min(0)
            .default(0)
            .describe('Start after this message number (nextAfterSeq of the previous page); 0 = from the start.'),
          limit: limit(1000, 200).describe('Messages per page, 1 to 1000.'),
        })
        .strict(),
    output: () => z.object({ messages: z.array(messageRecord), nextAfterSeq: z.number().int().nullable() }),
  }),
} as const;
