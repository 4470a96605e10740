import { Command } from 'commander';
import { dispatch } from '../commands/dispatch';
import { OWNER } from '../commands/principal';
import { commandNames, contract, type CommandName } from '../../shared/contract';
import { isCommandError } from '../../shared/errors';
import { APP_VERSION } from '../version';
import { yaml } from '../lazy-deps';
import { COMMAND_ALIASES, GROUP_ALIASES, commandPath, type CommandAlias } from './aliases';
import { fieldSpecs, kebab, type FieldSpec } from './fields';
import { optionsFor } from './options';
import { emptyInput, fillInput, type GivenInput } from './input';
import { FlagError, headField } from './errors';
import type { CliContext, CliResult, CliView, DoorCommand } from './framework';
import { doorCommands, views } from './index';

export const BIN = 'evoflux-memory';

/** What one run of the CLI shares with the commands it builds. */
export interface Invocation extends CliContext {
  /** Set by the command that ran; printed by main(). */
  result: CliResult | null;
}

/** Options are added when the command is reached (or its help shown), so a run builds only its own. */
const pendingOptions = new WeakMap<Command, () => void>();

export function ensureOptions(cmd: Command): void {
  const add = pendingOptions.get(cmd);
  if (!add) return;
  pendingOptions.delete(cmd);
  add();
}

export function ensureTree(cmd: Command): void {
  ensureOptions(cmd);
  cmd.commands.forEach(ensureTree);
}

const findSubcommand = (parent: Command, word: string) =>
  parent.commands.find((c) => c.name() === word || c.aliases().includes(word));

function groupAt(program: Command, path: readonly string[]): Command {
  let group = program;
  for (const word of path) group = findSubcommand(group, word) ?? group.command(word);
  return group;
}

/** Adds the fields' options (and the free-text words, if one field takes them) on first use. */
function withFields(cmd: Command, specs: () => readonly FieldSpec[], more: () => void = () => {}): void {
  pendingOptions.set(cmd, () => {
    for (const spec of specs()) {
      for (const option of optionsFor(spec)) cmd.addOption(option);
      if (spec.positional) cmd.argument(`[${spec.flag}...]`, `${spec.description} Same as --${spec.flag}.`);
    }
    more();
  });
}

/** Maps a failure to the flag the user typed, or would type, for the field it names. */
function labelled(e: unknown, cmd: Command, specs: readonly FieldSpec[], given: GivenInput): unknown {
  if (!isCommandError(e)) return e;
  const head = headField(e.field);
  if (head === undefined) return new FlagError(e, undefined);
  const spec = specs.find((s) => s.field === head);
  const own = cmd.options.find((o) => o.long === `--${kebab(head)}`);
  return new FlagError(e, given.givenAs.get(head) ?? (spec ? `--${spec.flag}` : own?.long));
}

type AnyView = { text?(output: unknown): string; check?(output: unknown): void; printFailed?: boolean };

/** Sets the invocation's result, unless the view's check turns the output into a failure. */
function render(ctx: Invocation, name: CommandName, output: unknown): void {
  const view = views[name] as CliView<CommandName> as AnyView | undefined;
  const result = { data: output, text: view?.text ? view.text(output) : yaml().stringify(output).trimEnd() };
  if (view?.printFailed) ctx.result = result;
  view?.check?.(output);
  ctx.result = result;
}

/** The words after the options, when the command takes some: commander passes them first. */
const wordsOf = (args: unknown[]): string[] | undefined => (Array.isArray(args[0]) ? (args[0] as string[]) : undefined);

function runsContract(cmd: Command, name: CommandName, ctx: Invocation, whenEmpty?: CommandName): void {
  const specs = () => fieldSpecs(name);
  withFields(cmd, specs);
  cmd.action(async (...args: unknown[]) => {
    const given = emptyInput();
    try {
      fillInput(given, specs(), cmd.opts(), wordsOf(args));
      const target = whenEmpty && given.givenAs.size === 0 ? whenEmpty : name;
      render(ctx, target, await dispatch(ctx.engine(), target, given.input, OWNER));
    } catch (e) {
      throw labelled(e, cmd, specs(), given);
    }
  });
}

function addContractCommand(program: Command, name: CommandName, ctx: Invocation): void {
  const path = commandPath(name);
  const cmd = groupAt(program, path.slice(0, -1)).command(path[path.length - 1]!);
  cmd.description(contract[name].description);
  runsContract(cmd, name, ctx);
}

function addDoorCommand(program: Command, door: DoorCommand, ctx: Invocation): void {
  const cmd = groupAt(program, door.path.slice(0, -1)).command(door.path[door.path.length - 1]!);
  cmd.description(door.summary);
  const specs = () => (door.fields ?? []).map((f) => fieldSpecs(f.command).find((s) => s.field === f.field)!);
  withFields(cmd, specs, () => door.options?.().forEach((o) => cmd.addOption(o)));
  cmd.action(async () => {
    const given = emptyInput();
    try {
      fillInput(given, specs(), cmd.opts());
      ctx.result = await door.run(ctx, given.input, cmd.opts());
    } catch (e) {
      throw labelled(e, cmd, specs(), given);
    }
  });
}

/**
 * An older name: a plain alias where it sits beside its command (`sessions add`), a copy where it
 * sits elsewhere (`recall` for `memory recall`), and the group's own action where it names a group
 * (`dream config` runs `dream config set`, or `get` without options).
 */
function addAlias(program: Command, alias: CommandAlias, ctx: Invocation): void {
  const target = commandPath(alias.command);
  const parentPath = alias.path.slice(0, -1);
  const word = alias.path[alias.path.length - 1]!;
  const sameParent = parentPath.join(' ') === target.slice(0, -1).join(' ');
  if (sameParent && !alias.whenEmpty) {
    groupAt(program, target).alias(word);
    return;
  }
  const existing = findSubcommand(groupAt(program, parentPath), word);
  const cmd = existing ?? groupAt(program, parentPath).command(word).helpGroup('Older names:');
  const otherwise = alias.whenEmpty ? `, or "${commandPath(alias.whenEmpty).join(' ')}" when no option is given` : '';
  const runs = `"${target.join(' ')}"${otherwise}`;
  cmd.description(
    existing
      ? `${existing.commands.map((c) => c.name()).join(', ')}. Without one of them: the same as ${runs}.`
      : `The same as ${runs}.`,
  );
  runsContract(cmd, alias.command, ctx, alias.whenEmpty);
}

/** The options of each of a group's commands, for the group's help. */
function optionsOfEach(group: Command): string {
  const help = group.createHelp();
  help.prepareContext({ helpWidth: (process.stdout.columns || 100) - 4 });
  const listed = group.commands.map((sub) => {
    ensureOptions(sub);
    return { sub, options: help.visibleOptions(sub).filter((o) => o.long !== '--help') };
  });
  const width = Math.min(34, Math.max(0, ...listed.flatMap((l) => l.options.map((o) => help.optionTerm(o).length))));
  const lines = ['', 'Options of each command:'];
  for (const { sub, options } of listed) {
    lines.push(`  ${help.subcommandTerm(sub)}`);
    for (const o of options) {
      const item = help.formatItem(help.optionTerm(o), width, help.optionDescription(o), help);
      lines.push(...item.split('\n').map((line) => `    ${line}`));
    }
  }
  return lines.join('\n');
}

/** A group's help lists each of its commands with their options. */
function describeGroup(group: Command): void {
  if (!group.description()) group.description(`Commands: ${group.commands.map((c) => c.name()).join(', ')}.`);
  group.addHelpText('after', () => optionsOfEach(group));
}

function describeGroups(cmd: Command): void {
  for (const group of cmd.commands.filter((c) => c.commands.length > 0)) {
    for (const alias of GROUP_ALIASES[group.name()] ?? []) group.alias(alias);
    describeGroup(group);
    describeGroups(group);
  }
}

/**
 * The whole CLI: one command per contract command, named by its dotted name (`sessions.create`
 * -> `sessions create`, `wiki.notes.append` -> `wiki notes append`), flags from its input schema,
 * help from its descriptions; then the door-only commands and the older names.
 */
export function buildProgram(ctx: Invocation): Command {
  const program = new Command(BIN)
    .description('EvoFlux Memory: local-first long-term memory for AI agents.')
    .enablePositionalOptions()
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (s) => ctx.out(s.replace(/\n$/, '')),
      writeErr: (s) => ctx.err(s.replace(/\n$/, '')),
      outputError: () => {},
    })
    .configureHelp({ showGlobalOptions: true })
    .version(APP_VERSION, '-V, --version', 'Print the version.')
    .option('--home <dir>', "The data home (default: EVOFLUX_HOME, else the platform's app data folder).")
    .option('--json', 'Print the output (or the error) as JSON.');
  program.addHelpText('after', `\nGlobal options go anywhere on the line. "${BIN} GROUP --help" lists a group.`);
  for (const name of commandNames) addContractCommand(program, name, ctx);
  for (const door of doorCommands) addDoorCommand(program, door, ctx);
  for (const alias of COMMAND_ALIASES) addAlias(program, alias, ctx);
  describeGroups(program);
  return program;
}
