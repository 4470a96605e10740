import type { Handlers } from './types';
import { factCommands } from '../../shared/commands/facts';
import { writeTx } from '../store/db';
import { getFact, listEvidence, recordFact } from '../store/facts';
import { decodeFactCursor, listFacts } from '../store/fact-queries';
import { getMessage } from '../store/messages';
import { coerceScope, resolveScopes } from '../memory/scope';
import { forgetFact } from '../memory/forget';
import { forgetWikiReport } from './forget-wiki';
import { normalizeWorkspacePath } from '../memory/workspace-path';
import { invalid, notFound } from '../../shared/errors';
import { findSecret } from '../memory/secrets';

export const factHandlers: Handlers<typeof factCommands> = {
  'facts.list': (engine, input) => {
    if (input.cursor && !decodeFactCursor(input.cursor))
      throw invalid('cursor', 'is not a cursor returned by facts.list');
    if (input.scopeKey !== undefined && !input.scope) throw invalid('scopeKey', 'needs scope as well');
    const scopeKey =
      input.scope === 'workspace' && input.scopeKey ? normalizeWorkspacePath(input.scopeKey) : input.scopeKey;
    return listFacts(engine.db, { ...input, scopeKey });
  },

  'facts.get': (engine, { factId }) => {
    const fact = getFact(engine.db, factId);
    if (!fact) throw notFound('fact', factId, 'factId');
    return { ...fact, evidence: listEvidence(engine.db, factId) };
  },

  'facts.add': (engine, input) => {
    // Manual entry gets the same secret rejection as extraction: memory never stores credentials.
    const secret = findSecret(input.text);
    if (secret) throw invalid('text', `looks like a secret (${secret.kind}); secrets are never stored`);
    const result = writeTx(engine.db, () => {
      const scopes = resolveScopes(engine.db, input.sessionId);
      if (input.messageId) {
        const message = getMessage(engine.db, input.messageId);
        if (!message) throw notFound('message', input.messageId, 'messageId');
        if (message.sessionId !== input.sessionId) throw invalid('messageId', 'belongs to another session');
      }
      // Evidence always names the owner: a team member's observation supports its lead's context.
      return recordFact(
        engine.db,
        {
          text: input.text,
          kind: input.kind,
          confidence: input.confidence,
          origin: 'manual',
          target: coerceScope(scopes, input.scope, input.kind),
          sessionId: input.sessionId,
          messageId: input.messageId ?? null,
        },
        engine.clock.now(),
      );
    });
    if (!result.unchanged) engine.events.emit('facts-changed', { sessionIds: [input.sessionId] });
    return result;
  },

  'facts.delete': async (engine, { factId, dryRun }) => {
    const report = forgetFact(engine.db, factId, { dryRun, now: engine.clock.now() });
    // Lets index maintenance purge the fact's search tokens (and views refresh).
    if (!dryRun) engine.events.emit('facts-changed', { sessionIds: [] });
    const targets = { dryRun, sessionIds: [], factIds: [factId], factTexts: [report.fact.text] };
    return { ...report, wiki: await forgetWikiReport(engine, targets) };
  },

  'scopes.resolve': (engine, { sessionId }) => {
    const s = resolveScopes(engine.db, sessionId);
    return { sessionId: s.session.id, ownerSessionId: s.owner.id, visible: s.visible };
  },
};
