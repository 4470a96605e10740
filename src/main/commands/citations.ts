import type { Handlers } from './types';
import { citationCommands } from '../../shared/commands/citations';
import { resolveRef } from '../memory/citations';
import { citedMessage } from '../store/citations';
import { getSession } from '../store/sessions';
import { notFound } from '../../shared/errors';

export const citationHandlers: Handlers<typeof citationCommands> = {
  'citations.resolve': (engine, { ref }) => {
    const cited = resolveRef(engine.db, ref);
    const session = cited && getSession(engine.db, cited.sessionId);
    if (!cited || !session) throw notFound('citation', ref, 'ref');
    const message = cited.messageId ? citedMessage(engine.db, cited.messageId) : undefined;
    return {
      ref,
      sessionId: cited.sessionId,
      messageId: cited.messageId,
      session,
      sessionTitle: session.title,
      messageSeq: message?.seq ?? null,
      messageExcerpt: message?.excerpt ?? null,
    };
  },
};
