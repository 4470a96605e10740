import type { Handlers } from './types';
import { factCommands } from '../../shared/commands/facts';
import { writeTx } from '../store/db';
import { getFact, getFactRow, listEvidence, recordFact } from '../store/facts';
import { countMatchingFacts, decodeFactCursor, listFacts } from '../store/fact-queries';
import { createManualFact, editFact, factHistory, setRecallMode } from '../store/fact-edits';
import { listContexts } from '../store/contexts';
import { createContext, editTarget, scopeChoices } from '../memory/fact-scopes';
import { getMessage } from '../store/messages';
import { coerceScope, resolveScopes } from '../memory/scope';
import { forgetFact } from '../memory/forget';
import { forgetWikiReport } from './forget-wiki';
import { normalizeWorkspacePath } from '../memory/workspace-path';
import { invalid, notFound } from '../../shared/errors';
import { findSecret } from '../memory/secrets';

/** Manual entry and edits get the same secret rejection as extraction: memory never stores credentials. */
function refuseSecrets(text: string | undefined): void {
  const secret = text === undefined ? null : findSecret(text);
  if (secret) throw invalid('text', `looks like a secret (${secret.kind}); secrets are never stored`);
}

/** A scope key filter is only meaningful with its scope; workspace paths are normalized like sessions'. */
function filterScopeKey(input: { scope?: string; scopeKey?: string }): string | undefined {
  if (input.scopeKey !== undefined && !input.scope) throw invalid('scopeKey', 'needs scope as well');
  return input.scope === 'workspace' && input.scopeKey ? normalizeWorkspacePath(input.scopeKey) : input.scopeKey;
}

export const factHandlers: Handlers<typeof factCommands> = {
  'facts.list': (engine, input) => {
    if (input.cursor && !decodeFactCursor(input.cursor))
      throw invalid('cursor', 'is not a cursor returned by facts.list');
    if (input.sort === 'relevance' && !input.text) throw invalid('sort', 'relevance needs text to rank by');
    return listFacts(engine.db, { ...input, scopeKey: filterScopeKey(input) });
  },

  'facts.count': (engine, input) => ({
    total: countMatchingFacts(engine.db, { ...input, scopeKey: filterScopeKey(input) }),
  }),

  'facts.get': (engine, { factId }) => {
    const row = getFactRow(engine.db, factId);
    const fact = getFact(engine.db, factId);
    if (!row || !fact) throw notFound('fact', factId, 'factId');
    return {
      ...fact,
      evidence: listEvidence(engine.db, factId),
      scopeChoices: scopeChoices(engine.db, row, row.kind),
    };
  },

  'facts.update': (engine, input) => {
    refuseSecrets(input.text);
    const result = writeTx(engine.db, () => {
      const row = getFactRow(engine.db, input.factId);
      if (!row) throw notFound('fact', input.factId, 'factId');
      const kind = input.kind ?? row.kind;
      const target = editTarget(engine.db, row, kind, input.scope, input.scopeKey);
      return editFact(
        engine.db,
        input.factId,
        { text: input.text, kind: input.kind, confidence: input.confidence, target },
        { actor: input.actor, now: engine.clock.now(), merge: input.merge },
      );
    });
    if (result.changed) engine.events.emit('facts-changed', { sessionIds: [] });
    return result;
  },

  'facts.create': (engine, input) => {
    refuseSecrets(input.text);
    const result = writeTx(engine.db, () => {
      const context = createContext(engine.db, input.scope, input.scopeKey, input.kind);
      return createManualFact(
        engine.db,
        { ...context, text: input.text, kind: input.kind, confidence: input.confidence },
        { actor: input.actor, now: engine.clock.now() },
      );
    });
    if (result.created) engine.events.emit('facts-changed', { sessionIds: [] });
    return result;
  },

  'facts.pin': (engine, { factId, pinned, actor }) =>
    writeTx(engine.db, () => {
      const current = getFactRow(engine.db, factId);
      if (!current) throw notFound('fact', factId, 'factId');
      // Unpinning a fact that is not pinned (normal or paused) leaves it as it is.
      const mode = pinned ? 'pinned' : current.recall === 'pinned' ? 'normal' : current.recall;
      return setRecallMode(engine.db, factId, mode, { actor, now: engine.clock.now() });
    }),

  'facts.pause': (engine, { factId, paused, actor }) =>
    writeTx(engine.db, () => {
      const current = getFactRow(engine.db, factId);
      if (!current) throw notFound('fact', factId, 'factId');
      const mode = paused ? 'paused' : current.recall === 'paused' ? 'normal' : current.recall;
      return setRecallMode(engine.db, factId, mode, { actor, now: engine.clock.now() });
    }),

  'facts.history': (engine, { factId }) => ({ entries: factHistory(engine.db, factId) }),

  'facts.add': (engine, input) => {
    refuseSecrets(input.text);
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

  'scopes.list': (engine, input) => listContexts(engine.db, input),
};
