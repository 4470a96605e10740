import { CommanderError } from 'commander';
import { openEngine, type Engine } from './engine';
import { resolveHome } from './home';
import { BIN, buildProgram, ensureOptions, ensureTree, type Invocation } from './cli/program';
import type { CliResult } from './cli/framework';
import { extractGlobals, type Globals } from './cli/globals';
import { FlagError, humanMessage, jsonError, type CliFailure } from './cli/errors';
import { progressLine, type ProgressLine } from './cli/progress';
import { CommandError, isCommandError } from '../shared/errors';
import { processKind, setProcessKind } from './log';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /**
   * Raw writes for the progress line of long jobs; given only when stderr is a terminal, so
   * nothing but results and errors reach a pipe or a file.
   */
  progress?(chunk: string): void;
}

const defaultIo: CliIo = {
  out: (t) => process.stdout.write(t + '\n'),
  err: (t) => process.stderr.write(t + '\n'),
  progress: process.stderr.isTTY ? (chunk) => process.stderr.write(chunk) : undefined,
};

/** Exit codes: usage errors (no or unknown command) 2, help and version 0, anything else 1. */
function exitCodeOf(e: CommanderError): number {
  if (e.exitCode === 0) return 0;
  return e.code === 'commander.unknownCommand' || e.code === 'commander.help' ? 2 : 1;
}

/** Commander's own message on one line, without its "error: " prefix. */
const commanderMessage = (e: CommanderError) =>
  e.message
    .replace(/^error: /, '')
    .replace(/^./, (c) => c.toUpperCase())
    .replace(/\s*\n\s*/g, ' ');

function failureOf(e: unknown): CliFailure {
  if (e instanceof FlagError) return { error: e.error, flag: e.flag };
  if (isCommandError(e)) return { error: e, flag: e.field === 'home' ? '--home' : undefined };
  return { error: new CommandError('internal', (e as Error)?.message ?? String(e)) };
}

/** Help is built in full only when asked for: a run adds only its own command's options. */
const wantsHelp = (rest: string[]) =>
  rest.length === 0 || rest[0] === 'help' || rest.some((a) => a === '--help' || a === '-h');

/**
 * Runs one CLI invocation and returns the exit code: 0 ok, 1 the command failed (bad input,
 * unknown id), 2 usage error (no command, an unknown one). A failure prints one line on stderr
 * (JSON with --json) naming the flag at fault.
 */
export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  // serve and mcp say so themselves once they start.
  if (processKind() === 'node') setProcessKind('cli');
  const run = new Run(io, argv.includes('--json'));
  try {
    const program = buildProgram(run);
    run.globals = extractGlobals(program, argv, ensureOptions);
    const rest = run.globals.rest;
    if (wantsHelp(rest)) ensureTree(program);
    if (rest.length === 0) {
      io.out(program.helpInformation().replace(/\n$/, ''));
      return 2;
    }
    await program.parseAsync(rest, { from: 'user' });
    if (run.result) io.out(run.json ? JSON.stringify(run.result.data, null, 2) : run.result.text);
    return 0;
  } catch (e) {
    // A view may print its output even when it fails it (doctor's report).
    if (run.result) io.out(run.json ? JSON.stringify(run.result.data, null, 2) : run.result.text);
    return run.fail(e);
  } finally {
    await run.close();
  }
}

/** One invocation: its global options, its engine (opened on first use) and its progress line. */
class Run implements Invocation {
  globals: Globals;
  result: CliResult | null = null;
  readonly signal: AbortSignal;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  private opened: Engine | null = null;
  private readonly progress: ProgressLine | null;

  constructor(
    private readonly io: CliIo,
    json: boolean,
  ) {
    this.globals = { json, rest: [], path: [] };
    this.signal = io.signal ?? new AbortController().signal;
    this.out = io.out;
    this.err = io.err;
    this.progress = io.progress ? progressLine(io.progress) : null;
  }

  get home(): string {
    return resolveHome(this.globals.home, this.io.env ?? process.env);
  }

  get json(): boolean {
    return this.globals.json;
  }

  engine(): Engine {
    if (this.opened) return this.opened;
    const engine = (this.opened = openEngine({ home: this.home }));
    const progress = this.json ? null : this.progress;
    if (progress) engine.events.on('progress', (p) => progress.update(p));
    return engine;
  }

  /** Prints the failure (JSON with --json) and returns the exit code. */
  fail(e: unknown): number {
    if (e instanceof CommanderError) {
      const code = exitCodeOf(e);
      if (code !== 0 && e.code !== 'commander.help') this.report(invalidUsage(e, this.globals));
      return code;
    }
    const failure = failureOf(e);
    this.report(failure);
    if (failure.error.code === 'internal' && process.env.EVOFLUX_DEBUG) this.err(String((e as Error).stack));
    return 1;
  }

  private report(failure: CliFailure): void {
    this.err(this.json ? jsonError(failure) : `${BIN}: ${humanMessage(failure)}`);
  }

  async close(): Promise<void> {
    await this.opened?.close();
    this.progress?.end();
  }
}

const invalidUsage = (e: CommanderError, globals: Globals): CliFailure => ({
  error: new CommandError(
    'invalid_input',
    `${commanderMessage(e)} (see ${[BIN, ...globals.path.map((c) => c.name()), '--help'].join(' ')})`,
  ),
});

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
