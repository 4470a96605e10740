import { parseArgs } from 'node:util';
import { openEngine, type Engine } from './engine';
import { resolveHome } from './home';
import { cliCommands } from './cli/index';
import type { CliCommand, CliContext } from './cli/framework';
import { CommandError, isCommandError } from '../shared/errors';
import { processKind, setProcessKind } from './log';

const BIN = 'evoflux-memory';

function helpText(): string {
  const lines = cliCommands.map((c) => `  ${c.path.join(' ').padEnd(18)} ${c.summary}\n  ${' '.repeat(18)} ${c.usage}`);
  return [
    `Usage: ${BIN} <command> [options] [--home DIR] [--json]`,
    '',
    'Commands:',
    ...lines,
    '',
    `The data home is --home, else EVOFLUX_HOME, else the platform's app data folder.`,
  ].join('\n');
}

function findCommand(args: string[]): { command: CliCommand; rest: string[] } | null {
  let best: CliCommand | null = null;
  for (const c of cliCommands) {
    if (c.path.every((p, i) => args[i] === p) && (!best || c.path.length > best.path.length)) best = c;
  }
  return best ? { command: best, rest: args.slice(best.path.length) } : null;
}

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

const defaultIo: CliIo = {
  out: (t) => process.stdout.write(t + '\n'),
  err: (t) => process.stderr.write(t + '\n'),
};

/**
 * Runs one CLI invocation and returns the exit code: 0 ok, 1 the command failed (bad input,
 * unknown id), 2 usage error. A failure prints one line on stderr (JSON with --json).
 */
export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  // serve and mcp say so themselves once they start.
  if (processKind() === 'node') setProcessKind('cli');
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.out(helpText());
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    const firstOption = argv.findIndex((a) => a.startsWith('-'));
    const words = argv.slice(0, firstOption === -1 ? argv.length : firstOption).slice(0, 2);
    io.err(`${BIN}: unknown command "${words.join(' ')}" (see ${BIN} --help)`);
    return 2;
  }
  const { command, rest } = found;
  let json = rest.includes('--json');
  let engine: Engine | null = null;
  try {
    const parsed = parseArgs({
      args: rest,
      options: { ...command.options, home: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    json = parsed.values.json === true;
    if (parsed.values.help) {
      io.out(`Usage: ${BIN} ${command.path.join(' ')} ${command.usage}\n  ${command.summary}`);
      return 0;
    }
    const home = resolveHome(parsed.values.home as string | undefined, io.env ?? process.env);
    const ctx: CliContext = {
      home,
      json,
      out: io.out,
      err: io.err,
      signal: io.signal ?? new AbortController().signal,
      engine: () => (engine ??= openEngine({ home })),
    };
    const result = await command.run(ctx, parsed.values, parsed.positionals);
    if (result) io.out(json ? JSON.stringify(result.data, null, 2) : result.text);
    return 0;
  } catch (e) {
    const error = isCommandError(e)
      ? e
      : e instanceof TypeError && (e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')
        ? new CommandError('invalid_input', e.message.split('\n')[0]!)
        : new CommandError('internal', (e as Error).message ?? String(e));
    io.err(json ? JSON.stringify({ error: error.toJSON() }) : `${BIN}: ${error.message}`);
    if (error.code === 'internal' && process.env.EVOFLUX_DEBUG) io.err(String((e as Error).stack));
    return 1;
  } finally {
    await (engine as Engine | null)?.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
