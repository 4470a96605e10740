import type { CliCommand } from './framework';
import { sessionCli } from './sessions';
import { factCli } from './facts';
import { extractionCli } from './extraction';
import { mcpCli } from './mcp';
import { serveCli } from './serve';
import { recallCli } from './recall';
import { wikiCli } from './wiki';
import { dreamCli } from './dream';
import { citationCli } from './citations';

/** Every CLI command; each area keeps its own list. */
export const cliCommands: CliCommand[] = [
  ...sessionCli,
  ...factCli,
  ...extractionCli,
  ...mcpCli,
  ...serveCli,
  ...recallCli,
  ...wikiCli,
  ...dreamCli,
  ...citationCli,
];
