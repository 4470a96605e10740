import type { CommandName } from '../../shared/contract';

/**
 * The names the CLI had before it was generated from the contract, kept so scripts keep
 * working. Everything else about a command (its flags, help, validation) comes from the contract.
 */

/** Short flags for fields that recur across commands, keyed by the generated flag. */
export const FLAG_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'session-id': ['session'],
  'parent-session-id': ['parent'],
  'project-id': ['project'],
  'folder-id': ['folder'],
  'agent-name': ['agent'],
  'fact-id': ['fact'],
  'message-id': ['message'],
  'include-hidden': ['hidden'],
  'unprocessed-only': ['unprocessed'],
  'tool-call-round': ['tool-round'],
  'keep-last-turns': ['keep'],
  'content-file': ['file'],
};

/** Switches that set a field to one value, keyed by the field. */
export const VALUE_FLAGS: Readonly<Record<string, readonly { flag: string; value: unknown; description: string }[]>> = {
  drain: [{ flag: 'once', value: false, description: 'One bounded batch, like a scheduled run (same as --no-drain).' }],
};

/**
 * Where the CLI's default differs from the contract's. `dream run` has always drained: a person
 * running it by hand wants everything pending consolidated, not one scheduled-size batch.
 */
export const CLI_DEFAULTS: Readonly<Partial<Record<CommandName, Record<string, unknown>>>> = {
  'dream.run': { drain: true },
};

/** Other names of a command group. */
export const GROUP_ALIASES: Readonly<Record<string, readonly string[]>> = {
  extraction: ['extract'],
};

export interface CommandAlias {
  path: readonly string[];
  command: CommandName;
  /** Runs instead when no option is given: `dream config` shows the settings, with options it changes them. */
  whenEmpty?: CommandName;
}

/** Older command paths, each naming the contract command it runs. */
export const COMMAND_ALIASES: readonly CommandAlias[] = [
  { path: ['sessions', 'add'], command: 'sessions.create' },
  { path: ['facts', 'show'], command: 'facts.get' },
  { path: ['scopes', 'show'], command: 'scopes.resolve' },
  { path: ['recall'], command: 'memory.recall' },
  { path: ['search'], command: 'memory.search' },
  { path: ['wiki', 'note'], command: 'wiki.notes.append' },
  { path: ['dream', 'lint'], command: 'wiki.lint' },
  { path: ['dream', 'config'], command: 'dream.config.set', whenEmpty: 'dream.config.get' },
  { path: ['doctor'], command: 'system.doctor' },
];

/**
 * A contract command's CLI path: its name's dot-separated words, kebab-cased
 * (`wiki.notes.append` -> `wiki notes append`, `settings.testConnection` -> `settings test-connection`).
 */
export const commandPath = (name: string): string[] =>
  name.split('.').map((w) => w.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));
