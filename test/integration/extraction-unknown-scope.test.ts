import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testResources } from '../helpers/home';
import { defaultSettings } from '../../src/main/settings';
import { memoriesReply, startLlmServer } from '../fixtures/extraction-llm-server';
import { validateCandidates } from '../../src/main/memory/extraction/validate';
import { resolveScopes } from '../../src/main/memory/scope';
import { COERCION_REASONS } from '../../src/shared/domain';

let server: Awaited<ReturnType<typeof startLlmServer>>;
beforeAll(async () => (server = await startLlmServer()));
afterAll(() => server.close());
const res = testResources();
afterEach(() => res.release());

describe('an extractor reply with a scope that does not exist', () => {
  it('is stored at session scope and recorded as coerced, with the name it asked for and the reason', async () => {
    const settings = defaultSettings();
    settings.llm = { ...settings.llm, baseUrl: server.url, model: 'm', maxRetries: 0, timeoutMs: 5000 };
    settings.extraction.enabled = false;
    const t = res.engine({ settings });
    const s = await t.run('sessions.create', { projectId: 'acme' });
    await t.run('messages.add', { sessionId: s.id, role: 'user', content: 'We ship the galaxy build on Fridays.' });
    await t.run('messages.add', { sessionId: s.id, role: 'assistant', content: 'Noted.' });
    server.enqueue(
      memoriesReply([
        { content: 'The galaxy build ships on Fridays', kind: 'fact', scope: 'galaxy', confidence: 'high', message: 1 },
      ]),
    );
    const run = await t.run('extraction.run', { sessionId: s.id });
    expect(run).toMatchObject({ outcome: 'stored', factsStored: 1 });
    const facts = await t.run('facts.list', { sessionId: s.id });
    expect(facts.facts).toHaveLength(1);
    expect(facts.facts[0]).toMatchObject({
      text: 'The galaxy build ships on Fridays',
      scope: 'session',
      requestedScope: 'galaxy',
      coercionReason: 'unknown-scope',
    });
  });

  it('validation: an unknown name is a coercion like any other; a missing scope is the session default, not one', async () => {
    const t = res.engine();
    const s = await t.run('sessions.create', { projectId: 'acme' });
    const scopes = resolveScopes(t.engine.db, s.id);
    const { accepted } = validateCandidates(
      [
        { text: 'Fact one is here', kind: 'fact', scope: 'Galaxy', confidence: 'high', messageId: null },
        { text: 'Fact two is here', kind: 'fact', scope: undefined as never, confidence: 'high', messageId: null },
        { text: 'Fact three is here', kind: 'fact', scope: 'project', confidence: 'high', messageId: null },
        { text: 'Fact four is here', kind: 'fact', scope: 'x'.repeat(500), confidence: 'high', messageId: null },
      ],
      scopes,
    );
    expect(accepted.map((a) => [a.target.scope, a.target.coercion])).toEqual([
      ['session', { requested: 'galaxy', reason: 'unknown-scope' }],
      ['session', null],
      ['project', null],
      ['session', { requested: 'unknown', reason: 'unknown-scope' }],
    ]);
    expect(COERCION_REASONS).toContain('unknown-scope');
  });
});
