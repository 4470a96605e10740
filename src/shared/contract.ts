import { sessionCommands } from './commands/sessions';
import { factCommands } from './commands/facts';
import { agentCommands } from './commands/agent';
import { agentWikiCommands } from './commands/agent-wiki';
import { agentSessionCommands } from './commands/agent-sessions';
import { extractionCommands } from './commands/extraction';
import { recallCommands } from './commands/recall';
import { turnCommands } from './commands/turns';
import { wikiCommands } from './commands/wiki';
import { dreamCommands } from './commands/dream';
import { systemCommands } from './commands/system';
import { citationCommands } from './commands/citations';
import { settingsCommands } from './commands/settings';
import { statsCommands } from './commands/stats';
import { historyImportCommands } from './commands/history-import';
import type { CommandSpec } from './commands/define';

export type { CommandSpec, InputOf, OutputOf, ParsedInputOf } from './commands/define';

/**
 * Every command of EvoFlux Memory, once. The IPC, HTTP, MCP and CLI doors are generated from
 * this map and validate with these schemas; adding a command here (and its handler in
 * src/main/commands/) is the only way to add a capability.
 */
export const contract = {
  ...sessionCommands,
  ...factCommands,
  ...extractionCommands,
  ...agentCommands,
  ...agentWikiCommands,
  ...agentSessionCommands,
  ...recallCommands,
  ...turnCommands,
  ...wikiCommands,
  ...dreamCommands,
  ...systemCommands,
  ...citationCommands,
  ...settingsCommands,
  ...statsCommands,
  ...historyImportCommands,
} as const satisfies Record<string, CommandSpec>;

export type Contract = typeof contract;
export type CommandName = keyof Contract;

export const commandNames = Object.keys(contract) as CommandName[];

export const isCommandName = (name: string): name is CommandName => Object.hasOwn(contract, name);
