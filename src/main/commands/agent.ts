import type { Handlers } from './types';
import { agentCommands } from '../../shared/commands/agent';
import { writeTx } from '../store/db';
import { getFact } from '../store/facts';
import { decodeFactCursor } from '../store/fact-queries';
import { resolveScopes } from '../memory/scope';
import { forgetFact } from '../memory/forget';
import { isVisible, listVisibleFacts, narrowTo } from '../memory/visible-facts';
import { invalid, notFound } from '../../shared/errors';

export const agentHandlers: Handlers<typeof agentCommands> = {
  'memory.facts': (engine, input) => {
    if (input.cursor && !decodeFactCursor(input.cursor))
      throw invalid('cursor', 'is not a cursor returned by memory.facts');
    const { visible } = resolveScopes(engine.db, input.sessionId);
    return listVisibleFacts(engine.db, narrowTo(visible, input.scope), input);
  },

  'memory.forget': (engine, { sessionId, factId, dryRun }) => {
    const report = writeTx(engine.db, () => {
      const { visible } = resolveScopes(engine.db, sessionId);
      const fact = getFact(engine.db, factId);
      // The same answer for "absent" and "someone else's": existence is not leaked across scopes.
      if (!fact || !isVisible(fact, visible)) throw notFound('fact', factId, 'factId');
      return forgetFact(engine.db, factId, { dryRun });
    });
    if (!dryRun) engine.events.emit('facts-changed', { sessionIds: [sessionId] });
    return report;
  },
};
