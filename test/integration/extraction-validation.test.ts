import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { defaultSettings } from '../../src/main/settings';
import { getCursor } from '../../src/main/store/extraction-states';
import { memoriesReply, startLlmServer } from '../fixtures/extraction-llm-server';

let server: Awaited<ReturnType<typeof startLlmServer>>;
beforeAll(async () => (server = await startLlmServer()));
afterAll(() => server.close());
let t: TestEngine;
afterEach(async () => {
  vi.restoreAllMocks();
  server.reset();
  await t.close();
});

function engine() {
  const settings = defaultSettings();
  settings.llm.baseUrl = server.url;
  settings.llm.model = 'm';
  settings.llm.maxRetries = 0;
  t = openTestEngine({ settings });
  return t;
}

describe('every candidate is validated before it is stored', () => {
  it('secrets are rejected, counted and logged by reason only; scopes are coerced; bad kinds and lengths rejected', async () => {
    const e = engine();
    const s = await e.run('sessions.create', { projectId: 'p1' });
    const m = await e.run('messages.add', { sessionId: s.id, role: 'user', content: 'Some conversation.' });
    await e.run('messages.add', { sessionId: s.id, role: 'assistant', content: 'A reply.' });
    const openaiKey = 'sk-' + 'Zx9Yw8Vu7Ts6Rq5Po4Nm';
    server.enqueue(
      memoriesReply([
        { content: `The OpenAI key is ${openaiKey}`, kind: 'fact', scope: 'project' },
        { content: 'The staging password: hunter2', kind: 'fact', scope: 'project' },
        { content: 'Use postgres://admin:s3cret@db.internal/app for reports', kind: 'fact', scope: 'project' },
        {
          content: 'We use trunk-based development.',
          kind: 'decision',
          scope: 'user',
          confidence: 'high',
          message: m.seq,
        },
        { content: 'User prefers dark mode.', kind: 'preference', scope: 'user' },
        { content: 'Lives in the folder scope', kind: 'fact', scope: 'folder' },
        { content: 'x', kind: 'fact' },
        { content: 'A fact with an odd kind', kind: 'gossip' },
      ]),
    );
    const r = await e.run('extraction.run', { sessionId: s.id });
    expect(r).toMatchObject({ outcome: 'stored', candidates: 8, factsStored: 3, rejected: 5 });
    expect(r.rejections).toEqual({
      'secret:openai-key': 1,
      'secret:credential-assignment': 1,
      'secret:connection-string': 1,
      'too-short': 1,
      'invalid-kind': 1,
    });
    expect(getCursor(e.engine.db, s.id)).toMatchObject({ candidatesRejected: 5, factsStored: 3 });

    const facts = (await e.run('facts.list', { limit: 50 })).facts;
    const byText = (x: string) => facts.find((f) => f.text === x)!;
    expect(byText('We use trunk-based development.')).toMatchObject({
      scope: 'project',
      requestedScope: 'user',
      coercionReason: 'technical-kind-not-user',
      confidence: 'high',
      origin: 'extraction',
    });
    expect(byText('User prefers dark mode.')).toMatchObject({ scope: 'user', requestedScope: null });
    expect(byText('Lives in the folder scope')).toMatchObject({
      scope: 'project',
      requestedScope: 'folder',
      coercionReason: 'scope-unavailable',
    });
    expect(facts.some((f) => /hunter2|s3cret|sk-/.test(f.text))).toBe(false);
    const evidence = (await e.run('facts.get', { factId: byText('We use trunk-based development.').id })).evidence;
    expect(evidence[0]!.messageId).toBe(m.id);

    // The engine's log file records why, never what.
    const log = readFileSync(e.engine.log.file, 'utf8');
    expect(log).toMatch(/rejected 5 candidate\(s\): secret:openai-key x1/);
    for (const secret of [openaiKey, 'hunter2', 's3cret']) expect(log).not.toContain(secret);
  });

  it('the model gets the same rules and its answers the same checks: right subject, right scope, nothing that hangs on a pronoun', async () => {
    const e = engine();
    const s = await e.run('sessions.create', { projectId: 'mobile' });
    const say = (role: 'user' | 'assistant', content: string) =>
      e.run('messages.add', { sessionId: s.id, role, content });
    const intro = await say(
      'user',
      'My name is Dana and I lead the mobile team. I prefer short answers with the code first. Never use default exports in this codebase.',
    );
    const reply = await say('assistant', 'Noted. I always prefer tabs, by the way. Zustand or Redux?');
    const choice = await say('user', "We'll use Zustand for state, Redux is too heavy for this app.");
    server.enqueue(
      memoriesReply([
        { content: "User's name is Dana.", kind: 'profile', scope: 'user', message: intro.seq },
        { content: 'User leads the mobile team.', kind: 'profile', scope: 'user', message: intro.seq },
        {
          content: 'User prefers short answers with the code first.',
          kind: 'preference',
          scope: 'user',
          message: intro.seq,
        },
        // The model put a codebase rule at user scope: it must land in the project.
        {
          content: 'Never use default exports in this codebase.',
          kind: 'preference',
          scope: 'user',
          message: intro.seq,
        },
        // The assistant's own taste is not the user's preference.
        { content: 'User prefers tabs.', kind: 'preference', scope: 'user', message: reply.seq },
        { content: 'User likes them.', kind: 'preference', scope: 'user', message: choice.seq },
        {
          content: 'It must be really putting the team to the test.',
          kind: 'fact',
          scope: 'project',
          message: choice.seq,
        },
        {
          content: "We'll use Zustand for state; Redux is too heavy.",
          kind: 'decision',
          scope: 'project',
          message: choice.seq,
        },
      ]),
    );
    const before = server.requests.length;
    const r = await e.run('extraction.run', { sessionId: s.id });
    expect(r.rejections).toEqual({ 'assistant-line': 1, pronoun: 2 });
    expect(r.factsStored).toBe(5);

    const prompt = server.requests[before]!.body.messages[0].content as string;
    expect(prompt).toContain('What the assistant says is never stored as the user');
    expect(prompt).toContain('even when phrased as "never" or "always"');
    expect(prompt).toMatch(/greetings, thanks, small talk, exclamations, questions, reactions/);
    expect(prompt).toContain(`[#${reply.seq}] Assistant: Noted.`);

    const facts = (await e.run('facts.list', { limit: 50 })).facts;
    const scopeOf = (text: string) => facts.find((f) => f.text === text);
    expect(scopeOf("User's name is Dana.")).toMatchObject({ scope: 'user', kind: 'profile' });
    expect(scopeOf('User leads the mobile team.')).toMatchObject({ scope: 'user', kind: 'profile' });
    expect(scopeOf('User prefers short answers with the code first.')).toMatchObject({ scope: 'user' });
    expect(scopeOf('Never use default exports in this codebase.')).toMatchObject({
      scope: 'project',
      scopeKey: 'mobile',
      requestedScope: 'user',
      coercionReason: 'work-content-not-user',
    });
    expect(scopeOf("We'll use Zustand for state; Redux is too heavy.")).toMatchObject({ scope: 'project' });
    expect(facts.map((f) => f.text)).not.toContain('User prefers tabs.');

    // A person who files a fact by hand chooses its scope: only the kind rule applies there.
    const manual = await e.run('facts.add', {
      sessionId: s.id,
      text: 'Prefers dark terminal themes everywhere.',
      kind: 'preference',
      scope: 'user',
    });
    expect(manual.fact).toMatchObject({ scope: 'user', coercionReason: null });
  });
});
