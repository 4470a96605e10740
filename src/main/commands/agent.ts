import type { Handlers } from './types';
import { agentCommands } from '../../shared/commands/agent';
import { writeTx } from '../store/db';
import { getFact } from '../store/facts';
import { decodeFactCursor } from '../store/fact-queries';
import { resolveScopes } from '../memory/scope';
import { forgetFact } from '../memory/forget';
import { forgetWikiReport, onlyPages, pagesVisibleTo } from './forget-wiki';
import { isVisible, listVisibleFacts, narrowTo } from '../store/visible-facts';
import { invalid, notFound } from '../../shared/errors';

export const agentHandlers: Handlers<typeof agentCommands> = {
  'memory.facts': (engine, input) => {
    if (input.cursor && !decodeFactCursor(input.cursor))
      throw invalid('cursor', 'is not a cursor returned by memory.facts');
    const { visible } = resolveScopes(engine.db, input.sessionId);
    return listVisibleFacts(engine.db, narrowTo(visible, input.scope), input);
  },

  'memory.forget': async (engine, { sessionId, factId, dryRun }) => {
    const { visible } = resolveScopes(engine.db, sessionId);
    // Pages are judged as they are before the forget: a page it deletes was visible or not then.
    const seen = pagesVisibleTo(engine, visible);
    const report = writeTx(engine.db, () => {
      const fact = getFact(engine.db, factId);
      // The same answer for "absent" and "someone else's": existence is not leaked across scopes.
      if (!fact || !isVisible(fact, visible)) throw notFound('fact', factId, 'factId');
      return forgetFact(engine.db, factId, { dryRun, now: engine.clock.now() });
    });
    if (!dryRun) engine.events.emit('facts-changed', { sessionIds: [sessionId] });
    const targets = { dryRun, sessionIds: [], factIds: [factId], factTexts: [report.fact.text] };
    return { ...report, wiki: onlyPages(await forgetWikiReport(engine, targets), seen) };
  },
};
