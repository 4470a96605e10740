import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseChatGptConversation } from '../../src/main/memory/history-import/chatgpt';
import { parseClaudeConversation } from '../../src/main/memory/history-import/claude';
import { groupJsonl, parseJsonlLine } from '../../src/main/memory/history-import/jsonl';
import { streamLines } from '../../src/main/memory/history-import/line-stream';
import { streamJsonArray } from '../../src/main/memory/history-import/json-array-stream';
import { readConversations, type ImportItem } from '../../src/main/memory/history-import/source';
import { timeMessages } from '../../src/main/memory/history-import/writer';
import { chatgptExport, claudeExport, writeJson } from '../fixtures/history-exports';

const dir = mkdtempSync(path.join(os.tmpdir(), 'evoflux-parsers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
};
async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
const T0 = 1_714_000_000_000;

describe('ChatGPT conversations', () => {
  const [branchy, plain, empty] = chatgptExport();

  it('follow the current branch from current_node to the root, skipping system, hidden, tool and non-text messages', () => {
    const c = parseChatGptConversation(branchy, 'conversation 0');
    expect(c.messages.map((m) => [m.key, m.role, m.content])).toEqual([
      ['u1', 'user', 'I moved to Lisbon in March.'],
      ['a1', 'assistant', 'Welcome to Lisbon!'],
      ['u2', 'user', 'Find me a quiet coworking space.'],
      ['b-a2', 'assistant', 'Two quiet places: Second Home and Heden.'],
      ['u3', 'user', 'Is this one quiet?'],
      ['b-a3', 'assistant', 'Yes, it has a silent floor.'],
    ]);
    expect(JSON.stringify(c.messages)).not.toContain('OLD BRANCH');
    expect(JSON.stringify(c.messages)).not.toContain('About me');
    // sys (hidden system), custom instructions, the tool call, the tool output, the reasoning.
    expect(c.skippedMessages).toBe(5);
    expect(c).toMatchObject({
      source: 'chatgpt',
      originalId: 'cg-branchy',
      title: 'Trip planning',
      createdAt: T0 + 250,
    });
  });

  it('keep real times in ms, null where the export has none', () => {
    const c = parseChatGptConversation(branchy, 'conversation 0');
    expect(c.messages[0]!.createdAt).toBe(T0 + 10_000);
    expect(c.messages.find((m) => m.key === 'u3')!.createdAt).toBeNull();
  });

  it('without current_node, take the newest leaf', () => {
    const copy = structuredClone(branchy) as { current_node?: string };
    delete copy.current_node;
    const c = parseChatGptConversation(copy, 'conversation 0');
    expect(c.messages.at(-1)!.key).toBe('b-a3');
  });

  it('a conversation with only system messages has nothing to import; a loop in the tree is refused', () => {
    expect(parseChatGptConversation(empty, 'c').messages).toEqual([]);
    const looped = structuredClone(plain) as { mapping: Record<string, { parent: string | null }> };
    looped.mapping['p-u1']!.parent = 'p-a2';
    expect(() => parseChatGptConversation(looped, 'c')).toThrow(/loops back/);
    expect(() => parseChatGptConversation({ title: 'x' }, 'c')).toThrow(/no "mapping"/);
  });
});

describe('Claude conversations', () => {
  const [first, second] = claudeExport();
  it('keep text blocks (not thinking, tool use or tool results), map human to user and skip empty messages', () => {
    const c = parseClaudeConversation(first, 'conversation 0');
    expect(c.messages.map((m) => [m.key, m.role, m.content])).toEqual([
      ['cl-1-m1', 'user', "I'm training for the Valencia marathon."],
      ['cl-1-m2', 'assistant', 'Great goal! Here is a plan.'],
      ['cl-1-m3', 'user', 'I run five days a week.'],
    ]);
    expect(c.skippedMessages).toBe(1);
    expect(c).toMatchObject({ source: 'claude', originalId: 'cl-1', title: 'Marathon training', createdAt: T0 });
  });

  it('an empty name is no title', () => {
    expect(parseClaudeConversation(second, 'c').title).toBeNull();
  });

  it('follow current_leaf_message_uuid when messages name their parents', () => {
    const branched = {
      uuid: 'b',
      name: 'b',
      created_at: '2024-01-01T00:00:00Z',
      current_leaf_message_uuid: 'm4',
      chat_messages: [
        { uuid: 'm1', sender: 'human', text: 'one', created_at: '2024-01-01T00:00:01Z' },
        { uuid: 'm2', sender: 'assistant', text: 'old answer', parent_message_uuid: 'm1' },
        { uuid: 'm3', sender: 'assistant', text: 'new answer', parent_message_uuid: 'm1' },
        { uuid: 'm4', sender: 'human', text: 'thanks', parent_message_uuid: 'm3' },
      ],
    };
    expect(parseClaudeConversation(branched, 'c').messages.map((m) => m.content)).toEqual([
      'one',
      'new answer',
      'thanks',
    ]);
  });
});

describe('times', () => {
  it('are never in the future and never before the previous message; a missing one takes the previous', () => {
    const m = (createdAt: number | null) => ({ key: 'k', role: 'user' as const, content: 'x', createdAt });
    const now = 10_000;
    expect(timeMessages([m(null), m(100), m(50), m(null), m(20_000), m(300)], 40, now)).toEqual({
      times: [40, 100, 100, 100, 10_000, 10_000],
      adjusted: 3,
    });
  });
});

describe('JSONL', () => {
  it('parses a message line and names what is wrong with a bad one', () => {
    expect(
      parseJsonlLine(
        '{"conversation":"c","role":"user","content":" hi ","createdAt":"2024-01-01T00:00:00Z","project":"p"}',
      ),
    ).toMatchObject({
      conversation: 'c',
      role: 'user',
      content: 'hi',
      createdAt: Date.UTC(2024, 0, 1),
      context: { projectId: 'p' },
    });
    expect(parseJsonlLine('{"conversation":"c","role":"bot","content":"x","createdAt":1}')).toMatch(/role/);
    expect(parseJsonlLine('{"conversation":"c","role":"user","content":"x"}')).toMatch(/createdAt/);
    expect(parseJsonlLine('{"role":"user","content":"x","createdAt":1}')).toMatch(/conversation/);
    expect(
      parseJsonlLine('{"conversation":"c","role":"user","content":"x","createdAt":1,"workspace":"rel/path"}'),
    ).toMatch(/workspace.*absolute/);
    expect(parseJsonlLine('nope')).toMatch(/not JSON/);
  });

  it('groups consecutive lines by conversation and spoils only the conversation with a bad line', async () => {
    const f = file(
      't.jsonl',
      [
        '{"conversation":"a","title":"A","role":"user","content":"one","createdAt":1000}',
        '{"conversation":"a","role":"assistant","content":"two","createdAt":2000}',
        '',
        '{"conversation":"b","role":"user","content":"three","createdAt":3000}',
        '{"conversation":"b","role":"robot","content":"four","createdAt":4000}',
        '{"conversation":"c","role":"user","content":"same","createdAt":5000}',
        '{"conversation":"c","role":"user","content":"same","createdAt":5000}',
      ].join('\r\n'),
    );
    const groups = await all(groupJsonl(f, streamLines(f, { maxLineBytes: 1000, chunkBytes: 7 })));
    expect(
      groups.map((g) => (g.ok ? [g.conversation.originalId, g.conversation.position] : [g.position, g.reason])),
    ).toEqual([
      ['a', 'lines 1-2'],
      ['line 5', '"role" must be user, assistant, system or tool'],
      ['c', 'lines 6-7'],
    ]);
    const c = groups[2]!;
    if (!c.ok) throw new Error('expected c');
    // The same message twice at the same time: two keys, so neither is dropped.
    expect(new Set(c.conversation.messages.map((m) => m.key)).size).toBe(2);
  });

  it('the resources sample imports as two conversations with their own context', async () => {
    const sample = path.resolve(__dirname, '../../resources/import-samples/conversations.jsonl');
    const items = await all(readConversations(sample, 'auto', {}));
    const ok = items.filter((i): i is Extract<ImportItem, { ok: true }> => i.ok).map((i) => i.conversation);
    expect(ok.map((c) => [c.originalId, c.messages.length, c.skippedMessages, c.context])).toEqual([
      ['trip-2024', 4, 0, { folderId: 'personal' }],
      ['billing-db', 2, 1, { projectId: 'billing' }],
    ]);
  });

  it('refuses a line longer than the limit with its number', async () => {
    const f = file('long.jsonl', `{"a":1}\n${'x'.repeat(50)}\n`);
    await expect(all(streamLines(f, { maxLineBytes: 20, chunkBytes: 8 }))).rejects.toThrow(
      /line 2 \(byte 8\): is longer/,
    );
  });
});

describe('reading files', () => {
  it('detects ChatGPT and Claude exports from their first conversation and streams them in tiny chunks', async () => {
    const cg = writeJson(path.join(dir, 'cg.json'), chatgptExport());
    const formats: string[] = [];
    const items = await all(readConversations(cg, 'auto', { chunkBytes: 5, onFormat: (f) => formats.push(f) }));
    expect(formats).toEqual(['chatgpt']);
    expect(items.map((i) => (i.ok ? i.conversation.originalId : i.reason))).toEqual([
      'cg-branchy',
      'cg-plain',
      'cg-empty',
    ]);
    const cl = writeJson(path.join(dir, 'cl.json'), claudeExport());
    const claude = await all(readConversations(cl, 'auto', { chunkBytes: 3, onFormat: (f) => formats.push(f) }));
    expect(formats).toEqual(['chatgpt', 'claude']);
    expect(claude).toHaveLength(2);
  });

  it('names the byte offset of bad JSON, of a cut file and of a non-array', async () => {
    const bad = file('bad.json', '[{"a":1},\n {"b":2,}]');
    await expect(all(streamJsonArray(bad, { maxElementBytes: 1000 }))).rejects.toThrow(
      /bad\.json: byte 18: is not valid JSON/,
    );
    const cut = file('cut.json', '[{"mapping":{}}, {"mapping"');
    await expect(all(streamJsonArray(cut, { maxElementBytes: 1000 }))).rejects.toThrow(
      /cut\.json: byte 27: ends in the middle/,
    );
    const object = file('object.json', '  {"mapping": {}}');
    await expect(all(readConversations(object, 'chatgpt', {}))).rejects.toThrow(/byte 2: is not a JSON array/);
    const text = file('notes.txt', 'hello there');
    await expect(all(readConversations(text, 'auto', {}))).rejects.toThrow(/notes\.txt: byte 0: is not JSON/);
  });

  it('refuses a first conversation of neither kind, and a conversation over the size limit', async () => {
    const other = writeJson(path.join(dir, 'other.json'), [{ foo: 1 }]);
    await expect(all(readConversations(other, 'auto', {}))).rejects.toThrow(/conversation 0 \(byte 3\): is neither/);
    const wrong = writeJson(path.join(dir, 'wrong.json'), claudeExport());
    await expect(all(readConversations(wrong, 'chatgpt', {}))).rejects.toThrow(/looks like a claude conversation/);
    const big = file('big.json', `[{"mapping":{}},{"mapping":{"x":"${'y'.repeat(200)}"}}]`);
    await expect(all(streamJsonArray(big, { maxElementBytes: 100 }))).rejects.toThrow(
      /conversation 1 \(byte 16\): is larger than/,
    );
  });
});
