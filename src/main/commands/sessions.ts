import type { Handlers } from './types';
import { sessionCommands } from '../../shared/commands/sessions';
import { writeTx } from '../store/db';
import {
  childSessions,
  getSession,
  insertSession,
  listSessions,
  messageCounts,
  sessionFactCount,
} from '../store/sessions';
import { appendMessage, lastMessageOf, listMessages } from '../store/messages';
import { decodeCursor } from '../store/fact-queries';
import { forgetSession } from '../memory/forget';
import { afterSessionForget } from './forget-wiki';
import { importProvenance } from '../store/imports';
import { normalizeWorkspacePath } from '../memory/workspace-path';
import { CommandError, invalid, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { SessionRecord } from '../../shared/schemas';

/** A caller-given time (history imports), refused when it lies in the future; now when absent. */
function notInFuture(at: number | undefined, now: number): number {
  if (at === undefined) return now;
  if (at > now) throw invalid('createdAt', 'must not be in the future');
  return at;
}

export const sessionHandlers: Handlers<typeof sessionCommands> = {
  'sessions.create': (engine, input) => {
    const now = notInFuture(input.createdAt, engine.clock.now());
    const workspace = input.workspace === undefined ? null : normalizeWorkspacePath(input.workspace);
    return writeTx(engine.db, () => {
      const id = input.id ?? newId();
      if (getSession(engine.db, id)) throw new CommandError('conflict', `session already exists: ${id}`, 'id');
      let context = { projectId: input.projectId ?? null, workspace, folderId: input.folderId ?? null };
      let parentSessionId: string | null = null;
      if (input.kind === 'top-level') {
        if (input.parentSessionId) throw invalid('parentSessionId', 'a top-level session has no parent');
      } else {
        if (!input.parentSessionId)
          throw invalid('parentSessionId', `a ${input.kind} session needs its parent session`);
        const parent = getSession(engine.db, input.parentSessionId);
        if (!parent) throw notFound('session', input.parentSessionId, 'parentSessionId');
        // A team member or side chat lives in its parent's context; a different one is a mistake.
        for (const [field, value] of Object.entries(context) as [keyof typeof context, string | null][]) {
          if (value !== null && value !== parent[field]) {
            throw invalid(field, `a ${input.kind} session shares its parent's ${field}; leave it out`);
          }
        }
        context = { projectId: parent.projectId, workspace: parent.workspace, folderId: parent.folderId };
        parentSessionId = parent.id;
      }
      const session: SessionRecord = {
        id,
        kind: input.kind,
        parentSessionId,
        ...context,
        agentName: input.agentName ?? null,
        title: input.title ?? null,
        createdAt: now,
        updatedAt: now,
      };
      insertSession(engine.db, session);
      return session;
    });
  },

  'sessions.list': (engine, input) => {
    let before: { createdAt: number; id: string } | undefined;
    if (input.cursor) {
      const c = decodeCursor(input.cursor);
      if (!c) throw invalid('cursor', 'is not a cursor returned by sessions.list');
      before = { createdAt: c[0], id: c[1] };
    }
    const rows = listSessions(engine.db, {
      kind: input.kind,
      projectId: input.projectId,
      workspace: input.workspace === undefined ? undefined : normalizeWorkspacePath(input.workspace),
      folderId: input.folderId,
      before,
      limit: input.limit + 1,
    });
    const page = rows.slice(0, input.limit);
    const counts = messageCounts(
      engine.db,
      page.map((s) => s.id),
    );
    const last = page[page.length - 1];
    return {
      sessions: page.map((s) => ({ ...s, messageCount: counts.get(s.id) ?? 0 })),
      nextCursor:
        rows.length > input.limit && last
          ? Buffer.from(JSON.stringify([last.createdAt, last.id])).toString('base64url')
          : null,
    };
  },

  'sessions.get': (engine, { sessionId }) => {
    const session = getSession(engine.db, sessionId);
    if (!session) throw notFound('session', sessionId, 'sessionId');
    const factCount = sessionFactCount(engine.db, sessionId);
    const children = childSessions(engine.db, sessionId);
    const imported = importProvenance(engine.db, sessionId);
    const importedFrom = imported
      ? { source: imported.source, conversationId: imported.originalId, importedAt: imported.importedAt }
      : null;
    return {
      ...session,
      messageCount: messageCounts(engine.db, [sessionId]).get(sessionId) ?? 0,
      factCount,
      children,
      importedFrom,
    };
  },

  'sessions.delete': async (engine, { sessionId, dryRun }) => {
    const report = forgetSession(engine.db, sessionId, { dryRun, now: engine.clock.now() });
    const wiki = await afterSessionForget(engine, report, dryRun);
    return { ...report, wiki };
  },

  'messages.add': (engine, input) => {
    let topLevel = false;
    const message = writeTx(engine.db, () => {
      const session = getSession(engine.db, input.sessionId);
      if (!session) throw notFound('session', input.sessionId, 'sessionId');
      topLevel = session.kind === 'top-level';
      const at = notInFuture(input.createdAt, engine.clock.now());
      if (input.createdAt !== undefined && at < (lastMessageOf(engine.db, session.id)?.created_at ?? -Infinity)) {
        throw invalid('createdAt', "is earlier than the session's last message");
      }
      return appendMessage(engine.db, { id: newId(), ...input }, at);
    });
    engine.events.emit('messages-written', { sessionIds: [message.sessionId] });
    // A completed lead response drives the extraction cadence, from this door as from turns.
    const completed =
      message.role === 'assistant' &&
      !message.toolCallRound &&
      !message.hidden &&
      !message.sideChatContext &&
      !message.systemGenerated &&
      message.content.trim().length > 0;
    if (topLevel && completed)
      engine.events.emit('response-completed', { sessionId: message.sessionId, messageId: message.id });
    return message;
  },

  'messages.list': (engine, input) => {
    if (!getSession(engine.db, input.sessionId)) throw notFound('session', input.sessionId, 'sessionId');
    const messages = listMessages(engine.db, { ...input, limit: input.limit + 1 });
    const page = messages.slice(0, input.limit);
    return {
      messages: page,
      nextAfterSeq: messages.length > input.limit ? (page[page.length - 1]?.seq ?? null) : null,
    };
  },
};
