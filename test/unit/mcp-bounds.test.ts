import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedStdioServerTransport } from '../../src/main/api/mcp-stdio';
import { HeadAndTail, oversizeReply, sniffRequest } from '../../src/main/api/mcp-oversize';
import { clampArguments, clampNote } from '../../src/main/api/mcp-clamp';

const MAX = 1024;

function transport() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const t = new BoundedStdioServerTransport(stdin, stdout, MAX);
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  t.onmessage = (m) => received.push(m);
  t.onerror = (e) => errors.push(e.message);
  let written = '';
  stdout.on('data', (c) => (written += c));
  return {
    stdin,
    t,
    received,
    errors,
    replies: () =>
      written
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
}

const call = (id: number | string, extra: Record<string, unknown> = {}) => ({
  method: 'tools/call',
  params: { name: 'memory_recall', arguments: { sessionId: 's', text: 'hello', ...extra } },
  jsonrpc: '2.0',
  id,
});

describe('stdio transport with a bounded message size', () => {
  it('reads messages split across chunks and several in one chunk', async () => {
    const { stdin, t, received } = transport();
    await t.start();
    const a = JSON.stringify(call(1));
    const b = JSON.stringify(call(2));
    stdin.write(a.slice(0, 10));
    stdin.write(a.slice(10) + '\n' + b + '\r\n' + '\n');
    expect(received.map((m) => (m as { id: number }).id)).toEqual([1, 2]);
  });

  it('answers a line over the bound with an error result for its id, drops it, and reads the next', async () => {
    const { stdin, t, received, errors, replies } = transport();
    await t.start();
    const big = JSON.stringify(call(7, { text: 'x'.repeat(5 * MAX) }));
    // Streamed in small pieces: nothing past the bound is held.
    for (let i = 0; i < big.length; i += 100) stdin.write(big.slice(i, i + 100));
    stdin.write('\n' + JSON.stringify(call(8)) + '\n');
    await new Promise((r) => setImmediate(r));
    expect(received.map((m) => (m as { id: number }).id)).toEqual([8]);
    expect(replies()).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        result: expect.objectContaining({
          isError: true,
          content: [{ type: 'text', text: expect.stringMatching(/^invalid_input: request too large: 5,\d{3} bytes/) }],
        }),
      },
    ]);
    expect(errors[0]).toMatch(/dropped a message/);
  });

  it('answers other oversized requests with a JSON-RPC error, and notifications with nothing', async () => {
    const { stdin, t, replies } = transport();
    await t.start();
    stdin.write(
      JSON.stringify({ jsonrpc: '2.0', id: 'r1', method: 'resources/read', params: { uri: 'x'.repeat(2 * MAX) } }) +
        '\n',
    );
    stdin.write(
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { pad: 'x'.repeat(2 * MAX) } }) + '\n',
    );
    stdin.write('{' + 'garbage'.repeat(MAX) + '\n');
    await new Promise((r) => setImmediate(r));
    expect(replies()).toEqual([
      { jsonrpc: '2.0', id: 'r1', error: expect.objectContaining({ code: -32600 }) },
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) },
    ]);
  });

  it('reports a line that is not JSON-RPC and goes on', async () => {
    const { stdin, t, received, errors } = transport();
    await t.start();
    stdin.write('not json\n' + JSON.stringify(call(3)) + '\n');
    expect(received).toHaveLength(1);
    expect(errors).toHaveLength(1);
  });
});

describe('finding the id of a message by its first and last bytes', () => {
  it('finds ids written first or last, never a nested one', () => {
    expect(sniffRequest('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{', '')).toEqual({
      id: 5,
      method: 'tools/call',
    });
    expect(sniffRequest('{"method":"tools/call","params":{"a":1', '"x"}},"jsonrpc":"2.0","id":"abc"}')).toEqual({
      id: 'abc',
      method: 'tools/call',
    });
    expect(sniffRequest('{"method":"x","params":{"y":{"id":3', '"id":3}}}').id).toBeNull();
    expect(sniffRequest('{"method":"x"', '"id":1e999}').id).toBeNull();
  });

  it('keeps only the head and the tail of what streams past', () => {
    const kept = new HeadAndTail();
    kept.push(Buffer.from('{"method":"tools/call","params":{"t":"'));
    for (let i = 0; i < 100; i++) kept.push(Buffer.alloc(64 * 1024, 'x'));
    kept.push(Buffer.from('"},"jsonrpc":"2.0","id":42}'));
    expect(kept.size).toBeGreaterThan(6_000_000);
    expect(kept.sniff()).toEqual({ id: 42, method: 'tools/call' });
    expect(oversizeReply(kept.sniff(), kept.size, MAX)).toMatchObject({ id: 42, result: { isError: true } });
  });
});

describe('clamping agent limits', () => {
  const schema = {
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 200 },
      ratio: { type: 'number', minimum: 0, maximum: 1 },
      text: { type: 'string' },
    },
  };

  it('brings numbers into range and says what it used', () => {
    const r = clampArguments(schema, { limit: 999, ratio: -2, text: 'x' });
    expect(r.args).toEqual({ limit: 200, ratio: 0, text: 'x' });
    expect(r.changes).toEqual([
      { field: 'limit', given: 999, used: 200 },
      { field: 'ratio', given: -2, used: 0 },
    ]);
    expect(clampNote(r.changes)).toBe(
      'Note: limit 999 is outside the range this tool takes, so 200 was used; ratio -2 is outside the range this tool takes, so 0 was used.',
    );
  });

  it('leaves values in range, other types and unknown fields to validation', () => {
    const r = clampArguments(schema, { limit: 'ten', other: 5000, ratio: 0.5 });
    expect(r.changes).toEqual([]);
    expect(r.args).toEqual({ limit: 'ten', other: 5000, ratio: 0.5 });
  });
});
