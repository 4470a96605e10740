import type { CliCommand } from './framework';
import { sessionCli } from './sessions';
import { factCli } from './facts';

/** Every CLI command; each area keeps its own list. */
export const cliCommands: CliCommand[] = [...sessionCli, ...factCli];
