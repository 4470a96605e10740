import type { Handlers } from './types';
import { turnCommands } from '../../shared/commands/turns';
import { beginTurn, completeTurn, getCheckpoint } from '../memory/turns';
import { compactSession } from '../memory/working-memory';
import { getSession } from '../store/sessions';
import { notFound } from '../../shared/errors';

export const turnHandlers: Handlers<typeof turnCommands> = {
  'turns.begin': (engine, { sessionId, userText }) => beginTurn(engine, sessionId, userText),
  'turns.complete': (engine, input) => completeTurn(engine, input),
  'turns.compact': (engine, { sessionId, keepLastTurns }) => {
    if (!getSession(engine.db, sessionId)) throw notFound('session', sessionId, 'sessionId');
    return compactSession(engine, sessionId, keepLastTurns);
  },
  'turns.checkpoint': (engine, { sessionId }) => {
    if (!getSession(engine.db, sessionId)) throw notFound('session', sessionId, 'sessionId');
    const c = getCheckpoint(engine, sessionId);
    return { checkpoint: (c?.state ?? null) as never, updatedAt: c?.updatedAt ?? null };
  },
};
