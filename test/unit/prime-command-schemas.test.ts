import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineCommand } from '../../src/shared/commands/define';
import { primeCommandSchemas } from '../../src/main/commands/prime';
import { objectSchemasIn } from '../../src/main/commands/compile-parsers';
import { RequestGate } from '../../src/main/request-gate';

/** A command whose schemas note in `built` when they are built. */
const recordingCommand = (name: string, built: string[]) =>
  defineCommand({
    description: name,
    mutates: false,
    input: () => {
      built.push(`${name} in`);
      return z.object({});
    },
    output: () => {
      built.push(`${name} out`);
      return z.object({});
    },
  });

describe('primeCommandSchemas', () => {
  it('builds the named commands schemas in the background, one schema per turn, each once', async () => {
    const built: string[] = [];
    const command = (name: string) => recordingCommand(name, built);
    const commands = { a: command('a'), b: command('b'), c: command('c') };
    const primed = primeCommandSchemas(['a', 'b', 'not.a.command'], commands);
    expect(built).toEqual([]); // nothing on the caller's turn
    await new Promise((resolve) => setImmediate(resolve));
    expect(built).toEqual(['a in']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(built).toEqual(['a in', 'a out']);
    await primed;
    expect(built).toEqual(['a in', 'a out', 'b in', 'b out']);
    expect(commands.a.input).toBe(commands.a.input);
    expect(built).toHaveLength(4);
  });

  it('finds every object schema inside a command schema, however deep, each once', () => {
    const leaf = z.object({ id: z.string() });
    const inUnion = z.object({ kind: z.literal('a') });
    const inRecord = z.object({ n: z.number() });
    const inLazy = z.object({ deep: z.boolean() });
    const inPipe = z.object({ raw: z.string() });
    const root = z
      .object({
        list: z.array(leaf.optional()).nullable(),
        either: z.union([inUnion, z.string()]).default('x'),
        byKey: z.record(z.string(), inRecord),
        later: z.lazy(() => inLazy),
        piped: inPipe.transform((v) => v.raw).pipe(z.string()),
        self: leaf, // the same schema twice is parsed once
      })
      .strict();
    expect(new Set(objectSchemasIn(root))).toEqual(new Set([root, leaf, inUnion, inRecord, inLazy, inPipe]));
    expect([...objectSchemasIn(root)]).toHaveLength(6);
  });

  it('compiles every object schema of the commands, one per turn, each parsed once with {}', async () => {
    const nested = z.object({ id: z.string() });
    const output = z.object({ items: z.array(nested) });
    const input = z.object({ q: z.string() });
    const commands = {
      a: defineCommand({ description: 'a', mutates: false, input: () => input, output: () => output }),
    };
    const parsed = [nested, output, input].map((s) => vi.spyOn(s, 'safeParse'));
    const primed = primeCommandSchemas(['a'], commands);
    // Three steps build the schemas and list their objects; each later turn compiles one object.
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(parsed.filter((spy) => spy.mock.calls.length > 0)).toHaveLength(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(parsed.filter((spy) => spy.mock.calls.length > 0)).toHaveLength(1);
    await primed;
    for (const spy of parsed) expect(spy.mock.calls).toEqual([[{}]]);
  });

  it('runs no step while a request is in flight, and goes on a turn after the last one leaves', async () => {
    const built: string[] = [];
    const command = (name: string) => recordingCommand(name, built);
    const requests = new RequestGate();
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    requests.enter();
    const primed = primeCommandSchemas(['a'], { a: command('a') }, () => requests.busy(60_000));
    for (let i = 0; i < 5; i++) await turn();
    expect(built).toEqual([]);
    requests.leave();
    // The request's own follow-up (its reply) runs on the turn it leaves: the step comes after.
    expect(built).toEqual([]);
    await turn();
    await turn();
    expect(built).toEqual(['a in']);
    requests.enter();
    for (let i = 0; i < 5; i++) await turn();
    expect(built).toEqual(['a in']);
    requests.leave();
    await primed;
    expect(built).toEqual(['a in', 'a out']);
  });
});
