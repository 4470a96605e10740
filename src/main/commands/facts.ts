import type { Handlers } from './types';
import { factCommands } from '../../shared/commands/facts';
import { writeTx } from '../store/db';
import { getFact, getFactRow, listEvidence, recordFact, recordFacts, type Observation } from '../store/facts';
import { countMatchingFacts, decodeFactCursor, listFacts } from '../store/fact-queries';
import { createManualFact, editFact, factHistory, setRecallMode } from '../store/fact-edits';
import { listContexts } from '../store/contexts';
import { createContext, editTarget, scopeChoices } from '../memory/fact-scopes';
import { getMessage } from '../store/messages';
import { coerceScope, resolveScopes, type SessionScopes } from '../memory/scope';
import { forgetFact } from '../memory/forget';
import { forgetWikiReport } from './forget-wiki';
import { normalizeWorkspacePath } from '../memory/workspace-path';
import { invalid, notFound } from '../../shared/errors';
import { findSecret } from '../memory/secrets';
import type { Engine } from '../engine';
import type { Confidence, FactKind, Scope } from '../../shared/domain';

/** Manual entry and edits get the same secret rejection as extraction: memory never stores credentials. */
function refuseSecrets(text: string | undefined, field = 'text'): void {
  const secret = text === undefined ? null : findSecret(text);
  if (secret) throw invalid(field, `looks like a secret (${secret.kind}); secrets are never stored`);
}

interface ObservedFact {
  text: string;
  kind: FactKind;
  scope: Scope;
  confidence: Confidence;
  messageId?: string;
}

/**
 * What a session observed, as the store records it (facts.add, and each fact of facts.addBatch,
 * whose errors name the fact: `at` is its field prefix). Inside the caller's write transaction.
 */
function observation(engine: Engine, scopes: SessionScopes, fact: ObservedFact, at = ''): Observation {
  const sessionId = scopes.session.id;
  if (fact.messageId) {
    const message = getMessage(engine.db, fact.messageId);
    if (!message) throw notFound('message', fact.messageId, `${at}messageId`);
    if (message.sessionId !== sessionId) throw invalid(`${at}messageId`, 'belongs to another session');
  }
  // Evidence always names the owner: a team member's observation supports its lead's context.
  return {
    text: fact.text,
    kind: fact.kind,
    confidence: fact.confidence,
    origin: 'manual',
    target: coerceScope(scopes, fact.scope, fact.kind),
    sessionId,
    messageId: fact.messageId ?? null,
  };
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
    const result = writeTx(engine.db, () =>
      recordFact(engine.db, observation(engine, resolveScopes(engine.db, input.sessionId), input), engine.clock.now()),
    );
    if (!result.unchanged) engine.events.emit('facts-changed', { sessionIds: [input.sessionId] });
    return result;
  },

  'facts.addBatch': (engine, { sessionId, facts }) => {
    facts.forEach((f, i) => refuseSecrets(f.text, `facts.${i}.text`));
    const results = writeTx(engine.db, () => {
      const scopes = resolveScopes(engine.db, sessionId);
      const observed = facts.map((f, i) => observation(engine, scopes, f, `facts.${i}.`));
      return recordFacts(engine.db, observed, engine.clock.now());
    });
    const count = (flag: 'created' | 'reinforced' | 'unchanged') => results.filter((r) => r[flag]).length;
    if (count('unchanged') < results.length) engine.events.emit('facts-changed', { sessionIds: [sessionId] });
    return {
      results: results.map((r) => ({
        id: r.fact.id,
        scope: r.fact.scope,
        coercionReason: r.fact.coercionReason,
        created: r.created,
        reinforced: r.reinforced,
        unchanged: r.unchanged,
      })),
      created: count('created'),
      reinforced: count('reinforced'),
      unchanged: count('unchanged'),
    };
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
