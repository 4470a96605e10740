import type { Handlers } from './types';
import { recallCommands } from '../../shared/commands/recall';
import { getSession } from '../store/sessions';
import { notFound } from '../../shared/errors';
import { recallSwitchedOff } from '../memory/recall-switch';

export const recallHandlers: Handlers<typeof recallCommands> = {
  'memory.recall': async (engine, { sessionId, text }) => {
    if (!getSession(engine.db, sessionId)) throw notFound('session', sessionId, 'sessionId');
    const r = recallSwitchedOff(engine) ?? (await engine.readLane.recall(sessionId, text));
    return { facts: r.facts, block: r.block, abstained: r.abstained, reason: r.reason };
  },
  'memory.search': async (engine, input) => {
    if (!getSession(engine.db, input.sessionId)) throw notFound('session', input.sessionId, 'sessionId');
    const results = await engine.readLane.search({
      sessionId: input.sessionId,
      query: input.query,
      limit: input.limit,
      sources: [...new Set(input.sources)],
    });
    return { results };
  },
};
