import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { fieldSpecs } from '../../src/main/cli/fields';
import { attributeOf, optionsFor } from '../../src/main/cli/options';
import { emptyInput, fillInput } from '../../src/main/cli/input';
import { extractGlobals } from '../../src/main/cli/globals';
import { commandNames, type CommandName } from '../../src/shared/contract';
import { isCommandError } from '../../src/shared/errors';

const spec = (name: CommandName, field: string) => fieldSpecs(name).find((s) => s.field === field)!;

/** Parses `args` with the command's generated options and builds its input. */
function input(name: CommandName, args: string[]) {
  const cmd = new Command(name).exitOverride().configureOutput({ writeErr: () => {}, outputError: () => {} });
  const specs = fieldSpecs(name);
  for (const s of specs) {
    for (const o of optionsFor(s)) cmd.addOption(o);
    if (s.positional) cmd.argument(`[${s.flag}...]`);
  }
  let words: string[] | undefined;
  cmd.action((...a: unknown[]) => void (words = Array.isArray(a[0]) ? (a[0] as string[]) : undefined));
  cmd.parse(args, { from: 'user' });
  return fillInput(emptyInput(), specs, cmd.opts(), words);
}

describe('flags derived from the contract', () => {
  it('names each flag after its field and keeps the short names people type', () => {
    expect(spec('sessions.create', 'parentSessionId')).toMatchObject({
      flag: 'parent-session-id',
      aliases: ['parent'],
      kind: 'text',
      required: false,
    });
    expect(spec('sessions.create', 'createdAt').kind).toBe('time');
    expect(spec('messages.add', 'role')).toMatchObject({
      kind: 'choice',
      choices: ['user', 'assistant', 'tool', 'system'],
    });
    expect(spec('memory.search', 'sources')).toMatchObject({ kind: 'list', choices: ['facts', 'wiki', 'dialogue'] });
    expect(spec('memory.search', 'limit')).toMatchObject({ kind: 'number', defaultValue: 8 });
    expect(spec('turns.complete', 'toolRounds')).toMatchObject({ kind: 'json', fromFile: true, positional: false });
    expect(spec('turns.complete', 'checkpoint')).toMatchObject({ kind: 'json', fromFile: true });
    expect(spec('dream.config.set', 'enabled').kind).toBe('tristate');
    // The CLI drains by default; --once is the older name of --no-drain.
    expect(spec('dream.run', 'drain')).toMatchObject({ kind: 'switch', defaultValue: true, cliDefault: true });
    expect(spec('dream.run', 'drain').valueFlags.map((v) => v.flag)).toEqual(['once']);
    // messages.add has a field called hidden, so includeHidden's short name is not offered there.
    expect(spec('messages.list', 'includeHidden').aliases).toEqual(['hidden']);
    expect(spec('messages.add', 'hidden').aliases).toEqual([]);
  });

  it('takes one long free-text field per command as words, never an id or a path', () => {
    const positional = Object.fromEntries(
      commandNames.map((n) => [
        n,
        fieldSpecs(n)
          .filter((s) => s.positional)
          .map((s) => s.field),
      ]),
    );
    expect(positional).toMatchObject({
      'messages.add': ['content'],
      'facts.add': ['text'],
      'facts.list': [],
      'memory.recall': ['text'],
      'memory.search': ['query'],
      'turns.begin': ['userText'],
      'turns.complete': ['assistantText'],
      'wiki.read': [],
      'wiki.write': ['content'],
      'wiki.notes.append': ['content'],
    });
    expect(spec('wiki.write', 'content').fileAliases).toEqual(['file']);
  });

  it('gives every command distinct flags and every field a description', () => {
    for (const name of commandNames) {
      const flags = fieldSpecs(name).flatMap((s) => optionsFor(s).map((o) => o.long!));
      expect(new Set(flags).size, `${name}: ${flags.join(' ')}`).toBe(flags.length);
      for (const s of fieldSpecs(name)) expect(s.description, `${name}.${s.field}`).not.toBe('');
    }
  });

  it('turns flag text into the values the contract validates', () => {
    expect(input('facts.list', ['--limit', '25', '--scope', 'project']).input).toEqual({ limit: 25, scope: 'project' });
    expect(input('facts.list', ['--limit', 'ten']).input).toEqual({ limit: 'ten' });
    expect(input('sessions.create', ['--created-at', '1767225600000']).input.createdAt).toBe(1767225600000);
    expect(input('sessions.create', ['--created-at', '2026-01-01T00:00:00Z']).input.createdAt).toBe(
      '2026-01-01T00:00:00Z',
    );
    expect(
      input('memory.search', ['--session', 's', '--sources', 'facts,wiki', '--sources', 'dialogue', 'a', 'b']).input,
    ).toEqual({ sessionId: 's', sources: ['facts', 'wiki', 'dialogue'], query: 'a b' });
    expect(input('dream.config.set', ['--enabled']).input).toEqual({ enabled: true });
    expect(input('dream.config.set', ['--enabled', 'false']).input).toEqual({ enabled: false });
    expect(input('dream.config.set', ['--no-enabled', '--schedule', '0 2 * * *']).input).toEqual({
      enabled: false,
      schedule: '0 2 * * *',
    });
    expect(input('dream.run', []).input).toEqual({ drain: true });
    expect(input('dream.run', ['--once']).input).toEqual({ drain: false });
    expect(
      input('turns.complete', ['--session', 's', '--checkpoint', '{"a":[1]}', '--tool-rounds', '[]', 'ok']).input,
    ).toEqual({ sessionId: 's', checkpoint: { a: [1] }, toolRounds: [], assistantText: 'ok' });
    const given = input('sessions.delete', ['--session', 's', '--dry-run']);
    expect(given.input).toEqual({ sessionId: 's', dryRun: true });
    expect(given.givenAs.get('sessionId')).toBe('--session');
  });

  it('refuses a missing required field and two names for one field', () => {
    const fail = (name: CommandName, args: string[]) => {
      try {
        input(name, args);
      } catch (e) {
        return isCommandError(e) ? `${e.field}: ${e.message}` : (e as Error).message;
      }
      return 'no error';
    };
    expect(fail('sessions.get', [])).toBe('sessionId: sessionId: is required');
    expect(fail('memory.recall', ['--session', 's'])).toMatch(/text: .*or give it as the words after the options/);
    expect(fail('sessions.get', ['--session', 'a', '--session-id', 'b'])).toMatch(/cannot be used with option/);
    expect(fail('wiki.notes.append', ['--content', 'a', 'b'])).toMatch(/is given twice/);
  });

  it('uses commander attribute names for flags', () => {
    expect(attributeOf('parent-session-id')).toBe('parentSessionId');
    expect(attributeOf('content-file')).toBe('contentFile');
  });
});

describe('--home and --json anywhere', () => {
  const program = () => {
    const p = new Command('x').option('--home <dir>').option('--json');
    p.command('messages').command('add').option('--content <text>').option('--session <id>').argument('[words...]');
    return p;
  };
  const extract = (args: string[]) => {
    const g = extractGlobals(program(), args, () => {});
    return { home: g.home, json: g.json, rest: g.rest, path: g.path.map((c) => c.name()) };
  };

  it('takes them before, between, after the command and after --', () => {
    expect(extract(['--home', 'H', 'messages', 'add', 'hi'])).toEqual({
      home: 'H',
      json: false,
      rest: ['messages', 'add', 'hi'],
      path: ['messages', 'add'],
    });
    expect(extract(['messages', '--json', 'add', '--home=H', 'hi'])).toMatchObject({ home: 'H', json: true });
    expect(extract(['messages', 'add', '--', '-rf', '--home', 'H', '--json'])).toEqual({
      home: 'H',
      json: true,
      rest: ['messages', 'add', '--', '-rf'],
      path: ['messages', 'add'],
    });
  });

  it("leaves an option's own value alone", () => {
    expect(extract(['messages', 'add', '--content', '--json', '--home', 'H'])).toMatchObject({
      home: 'H',
      json: false,
      rest: ['messages', 'add', '--content', '--json'],
    });
    expect(extract(['messages', 'add', '--content=--home'])).toMatchObject({ home: undefined });
  });

  it('refuses --home without a folder rather than falling back to the default home', () => {
    for (const args of [['--home'], ['--home', ''], ['--home', '--json'], ['--home=']]) {
      expect(() => extract(['messages', 'add', ...args]), args.join(' ')).toThrow(/needs a data home folder/);
    }
  });
});
