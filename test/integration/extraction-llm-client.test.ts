import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createChatClient, LlmError } from '../../src/main/llm/openai-client';
import { extractionReply } from '../../src/main/memory/extraction/llm-extractor';
import { extractorFromSettings } from '../../src/main/memory/extraction/service';
import { defaultSettings } from '../../src/main/settings';
import { memoriesReply, startLlmServer } from '../fixtures/extraction-llm-server';

let server: Awaited<ReturnType<typeof startLlmServer>>;
beforeAll(async () => (server = await startLlmServer()));
afterAll(() => server.close());

const opts = { timeoutMs: 2000, maxRetries: 2, maxTokens: 700 };
const client = (extra: Partial<Parameters<typeof createChatClient>[0]> = {}) =>
  createChatClient({ baseUrl: server.url, model: 'test-model', apiKey: 'k-123', retryDelayMs: 10, ...extra });
const user = [{ role: 'user' as const, content: 'hello' }];

async function failure(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(LlmError);
    return e as LlmError;
  }
  throw new Error('expected a failure');
}

describe('OpenAI-compatible client against a real HTTP server', () => {
  it('a good reply is parsed and validated; the request carries model, token cap and key', async () => {
    server.enqueue(
      memoriesReply([{ content: 'Uses pnpm', kind: 'convention', scope: 'project', confidence: 'high', message: 3 }]),
    );
    const before = server.requests.length;
    const reply = await client().chatJson(user, extractionReply, opts);
    expect(reply.memories).toEqual([
      { content: 'Uses pnpm', kind: 'convention', scope: 'project', confidence: 'high', message: 3 },
    ]);
    const req = server.requests[before]!;
    expect(req.url).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer k-123');
    expect(req.body).toMatchObject({ model: 'test-model', max_tokens: 700, messages: user, stream: false });
  });

  it('a fenced JSON reply is accepted', async () => {
    server.enqueue({ content: '```json\n{"memories": []}\n```' });
    expect(await client().chatJson(user, extractionReply, opts)).toEqual({ memories: [] });
  });

  it('malformed JSON is an invalid-json failure, reported by size only and not retried', async () => {
    server.enqueue({ content: '{"memories": [ {"content": "secret sk-abcdefghijklmnop' });
    const before = server.requests.length;
    const e = await failure(client().chatJson(user, extractionReply, opts));
    expect(e.kind).toBe('invalid-json');
    expect(e.message).not.toContain('sk-abcdefghijklmnop');
    expect(server.requests.length - before).toBe(1);
  });

  it('a body that is not a chat completion at all is invalid-json', async () => {
    server.enqueue({ rawBody: '<html>gateway</html>' });
    expect((await failure(client().chatJson(user, extractionReply, opts))).kind).toBe('invalid-json');
  });

  it('more than 8 memories rejects the whole reply', async () => {
    server.enqueue(memoriesReply(Array.from({ length: 9 }, (_, i) => ({ content: `fact ${i}` }))));
    const e = await failure(client().chatJson(user, extractionReply, opts));
    expect(e.kind).toBe('invalid-shape');
    expect(e.message).toMatch(/memories/);
  });

  it('an oversized body is refused without reading it all', async () => {
    server.enqueue({ rawBody: 'x'.repeat(300_000) });
    const e = await failure(client({ maxResponseBytes: 64 * 1024 }).chatJson(user, extractionReply, opts));
    expect(e.kind).toBe('too-large');
  });

  it('a slow reply times out (and a timeout is not retried)', async () => {
    server.enqueue({ delayMs: 3000, content: '{"memories":[]}' });
    const before = server.requests.length;
    const e = await failure(client().chatJson(user, extractionReply, { ...opts, timeoutMs: 200 }));
    expect(e.kind).toBe('timeout');
    expect(server.requests.length - before).toBe(1);
  });

  it('500 then success: retried, and the second answer is used', async () => {
    server.enqueue(
      { status: 500, rawBody: '{"error":"boom"}' },
      { status: 503, rawBody: '' },
      memoriesReply([{ content: 'ok fact' }]),
    );
    const before = server.requests.length;
    const reply = await client().chatJson(user, extractionReply, opts);
    expect(reply.memories[0]).toMatchObject({
      content: 'ok fact',
      kind: 'fact',
      scope: 'session',
      confidence: 'medium',
    });
    expect(server.requests.length - before).toBe(3);
  });

  it('retries are bounded: persistent 500s fail after maxRetries + 1 attempts; 400 is never retried', async () => {
    server.enqueue(...Array.from({ length: 3 }, () => ({ status: 500, rawBody: '' })));
    let before = server.requests.length;
    const e = await failure(client().chatJson(user, extractionReply, opts));
    expect([e.kind, e.status]).toEqual(['http', 500]);
    expect(server.requests.length - before).toBe(3);
    server.enqueue({ status: 400, rawBody: '' });
    before = server.requests.length;
    expect((await failure(client().chatJson(user, extractionReply, opts))).status).toBe(400);
    expect(server.requests.length - before).toBe(1);
  });

  it('an unreachable endpoint is a network failure; a missing model is a config failure', async () => {
    const dead = createChatClient({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', retryDelayMs: 1 });
    expect((await failure(dead.chatJson(user, extractionReply, { ...opts, maxRetries: 1 }))).kind).toBe('network');
    expect((await failure(client({ model: '' }).chatJson(user, extractionReply, opts))).kind).toBe('config');
  });

  it('cancellation through the signal', async () => {
    const controller = new AbortController();
    server.enqueue({ delayMs: 2000, content: '{}' });
    const p = client().chatJson(user, z.object({}), { ...opts, signal: controller.signal });
    await server.nextRequest();
    controller.abort();
    expect((await failure(p)).kind).toBe('cancelled');
  });

  it('settings pick the extractor: rules without a base URL, the endpoint (key from env) with one', async () => {
    const settings = defaultSettings();
    expect(extractorFromSettings(settings).name).toBe('rules');
    settings.llm.baseUrl = server.url;
    settings.llm.model = 'env-model';
    const extractor = extractorFromSettings(settings, { EVOFLUX_LLM_API_KEY: 'from-env' });
    expect(extractor.name).toBe('llm:env-model');
    server.enqueue(memoriesReply([]));
    const before = server.requests.length;
    await extractor.extract(
      {
        sessionId: 's',
        entries: [{ messageId: 'm', seq: 1, role: 'user', text: 'hi' }],
        text: '',
        lastSeq: 1,
        truncated: false,
      },
      new AbortController().signal,
    );
    const req = server.requests[before]!;
    expect(req.headers.authorization).toBe('Bearer from-env');
    expect(req.body.max_tokens).toBe(700);
    const prompt: string = req.body.messages[0].content;
    expect(prompt).toContain('<conversation_data>\n[#1] User: hi\n</conversation_data>');
    expect(prompt).toMatch(/untrusted source data/);
    // The model gets the built-in extractor's rules: session state about the code is not a fact.
    expect(prompt).toMatch(/what the user did to the code in this session/);
    expect(prompt).toMatch(/"I have to \.\.\." has not/);
  });

  it('secrets in the transcript are redacted before the prompt leaves the machine', async () => {
    const settings = defaultSettings();
    settings.llm.baseUrl = server.url;
    settings.llm.model = 'm';
    const key = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    server.enqueue(memoriesReply([]));
    const before = server.requests.length;
    await extractorFromSettings(settings, {}).extract(
      {
        sessionId: 's',
        entries: [{ messageId: 'm', seq: 4, role: 'user', text: `my token is ${key}, keep tabs` }],
        text: '',
        lastSeq: 4,
        truncated: false,
      },
      new AbortController().signal,
    );
    const prompt: string = server.requests[before]!.body.messages[0].content;
    expect(prompt).not.toContain(key);
    expect(prompt).toContain('[#4] User: my token is [redacted github-token], keep tabs');
  });
});
