import { z } from 'zod';
import { defineCommand } from './define';
import { forgetWikiReport, id, messageRecord, messageRole, pastTime, sessionKind, sessionRecord } from '../schemas';

const limit = (max: number, dflt: number) => z.number().int().min(1).max(max).default(dflt);

export const sessionCommands = {
  'sessions.create': defineCommand({
    description:
      'Create a session. Top-level sessions carry their Coding project, workspace path and Work folder; team members and side chats name their parent and share its context.',
    mutates: true,
    input: z
      .object({
        id: id.optional(),
        kind: sessionKind.default('top-level'),
        parentSessionId: id.optional(),
        projectId: id.optional(),
        workspace: z.string().trim().min(1).max(4096).optional(),
        folderId: id.optional(),
        title: z.string().trim().max(500).optional(),
        agentName: z.string().trim().max(100).optional(),
        /** When the conversation really started, for sessions loaded from history; default now. */
        createdAt: pastTime.optional(),
      })
      .strict(),
    output: sessionRecord,
  }),
  'sessions.list': defineCommand({
    description: 'List sessions, newest first, keyset-paginated.',
    mutates: false,
    input: z
      .object({
        kind: sessionKind.optional(),
        projectId: id.optional(),
        workspace: z.string().trim().min(1).max(4096).optional(),
        folderId: id.optional(),
        cursor: z.string().max(500).optional(),
        limit: limit(500, 50),
      })
      .strict(),
    output: z.object({
      sessions: z.array(sessionRecord.extend({ messageCount: z.number().int() })),
      nextCursor: z.string().nullable(),
    }),
  }),
  'sessions.get': defineCommand({
    description: 'One session with its counts and direct children.',
    mutates: false,
    input: z.object({ sessionId: id }).strict(),
    output: sessionRecord.extend({
      messageCount: z.number().int(),
      factCount: z.number().int(),
      children: z.array(sessionRecord),
    }),
  }),
  'sessions.delete': defineCommand({
    description:
      'Forget a session (and its team members and side chats): its evidence goes first, then every fact no other session supports. With dryRun, report exactly what would go and what would stay.',
    mutates: true,
    input: z.object({ sessionId: id, dryRun: z.boolean().default(false) }).strict(),
    output: z.object({
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
    input: z
      .object({
        sessionId: id,
        role: messageRole,
        content: z.string().max(1_000_000),
        hidden: z.boolean().default(false),
        sideChatContext: z.boolean().default(false),
        toolCallRound: z.boolean().default(false),
        systemGenerated: z.boolean().default(false),
        /**
         * When the message was really written, for conversations loaded from history; default now.
         * Never in the future, never before the session's previous message.
         */
        createdAt: pastTime.optional(),
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
    output: messageRecord,
  }),
  'messages.list': defineCommand({
    description: 'A session transcript in order; hidden rows only when asked for.',
    mutates: false,
    input: z
      .object({
        sessionId: id,
        includeHidden: z.boolean().default(false),
        afterSeq: z.number().int().min(0).default(0),
        limit: limit(1000, 200),
      })
      .strict(),
    output: z.object({ messages: z.array(messageRecord), nextAfterSeq: z.number().int().nullable() }),
  }),
} as const;
