import type { Command, Option } from 'commander';
import { invalid } from '../../shared/errors';

/**
 * `--home DIR` and `--json` belong to every command and are taken out of the arguments before
 * commander sees them, wherever they are: before the command, after it, or after a `--` (so a
 * script that appends `--home "$H"` to any command line never falls back to the default home).
 * The only things never taken are an option's own value (`--content --json` stores the text
 * "--json") and the text of `--x=--json`. The scan follows the command path through commander's
 * own tree, so it knows which options take a value.
 */
export interface Globals {
  home?: string;
  json: boolean;
  /** The arguments left for commander. */
  rest: string[];
  /** The commands named on the line, outermost first. */
  path: Command[];
}

const takesValue = (o: Option) => o.required || o.optional;

function findOption(cmd: Command, arg: string): Option | undefined {
  const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
  return cmd.options.find((o) => o.long === name || o.short === name);
}

const findSubcommand = (cmd: Command, word: string) =>
  cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));

function homeValue(value: string | undefined): string {
  if (value === undefined || value.trim() === '' || (value.startsWith('-') && value !== '-')) {
    throw invalid('home', 'needs a data home folder, e.g. --home ~/evoflux (an empty one is refused)');
  }
  return value;
}

interface Scan {
  globals: Globals;
  cmd: Command;
  literal: boolean;
  operands: number;
}

/** Takes a global option at args[i]; returns how many arguments it used (0: not a global option). */
function takeGlobal(globals: Globals, args: string[], i: number): number {
  const arg = args[i]!;
  if (arg === '--json') {
    globals.json = true;
    return 1;
  }
  if (arg === '--home') {
    globals.home = homeValue(args[i + 1]);
    return 2;
  }
  if (arg.startsWith('--home=')) {
    globals.home = homeValue(arg.slice('--home='.length));
    return 1;
  }
  return 0;
}

/** An option of the current command: keeps it with its value, if it takes one. */
function keepOption(scan: Scan, args: string[], i: number): number {
  const arg = args[i]!;
  const option = findOption(scan.cmd, arg);
  const next = args[i + 1];
  if (!option || arg.includes('=') || !takesValue(option) || next === undefined) return 1;
  // Like commander: a required value is the next argument whatever it is; an optional one only
  // when it does not look like an option.
  if (option.optional && next.startsWith('-')) return 1;
  scan.globals.rest.push(next);
  return 2;
}

/** Handles one argument; returns how many it consumed. */
function step(scan: Scan, args: string[], i: number, visit: (cmd: Command) => void): number {
  const global = takeGlobal(scan.globals, args, i);
  if (global) return global;
  const arg = args[i]!;
  scan.globals.rest.push(arg);
  if (scan.literal) return 1;
  if (arg === '--') {
    scan.literal = true;
    return 1;
  }
  if (arg.length > 1 && arg.startsWith('-')) return keepOption(scan, args, i);
  const sub = scan.operands === 0 ? findSubcommand(scan.cmd, arg) : undefined;
  if (!sub) {
    scan.operands++;
    return 1;
  }
  visit(sub);
  scan.globals.path.push(sub);
  scan.cmd = sub;
  return 1;
}

/** `visit` is called on each command as the path reaches it (to add its options on demand). */
export function extractGlobals(program: Command, args: string[], visit: (cmd: Command) => void): Globals {
  const scan: Scan = { globals: { json: false, rest: [], path: [] }, cmd: program, literal: false, operands: 0 };
  visit(program);
  for (let i = 0; i < args.length;) i += step(scan, args, i, visit);
  return scan.globals;
}
