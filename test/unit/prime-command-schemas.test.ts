import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCommand } from '../../src/shared/commands/define';
import { primeCommandSchemas } from '../../src/main/commands/prime';

describe('primeCommandSchemas', () => {
  it('builds the named commands schemas in the background, one command per turn, each once', async () => {
    const built: string[] = [];
    const command = (name: string) =>
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
    const commands = { a: command('a'), b: command('b'), c: command('c') };
    const primed = primeCommandSchemas(['a', 'b', 'not.a.command'], commands);
    expect(built).toEqual([]); // nothing on the caller's turn
    await new Promise((resolve) => setImmediate(resolve));
    expect(built).toEqual(['a in', 'a out']);
    await primed;
    expect(built).toEqual(['a in', 'a out', 'b in', 'b out']);
    expect(commands.a.input).toBe(commands.a.input);
    expect(built).toHaveLength(4);
  });
});
