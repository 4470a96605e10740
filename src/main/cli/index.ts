import type { CliViews, DoorCommand } from './framework';
import { sessionViews, sessionsShow } from './sessions';
import { factViews } from './facts';
import { extractionViews } from './extraction';
import { mcpCommand } from './mcp';
import { factsImport } from './facts-import';
import { serveCommand } from './serve';
import { recallViews } from './recall';
import { wikiViews } from './wiki';
import { dreamViews } from './dream';
import { doctorViews } from './doctor';
import { historyImportViews } from './history-import';

/** How each contract command's output reads for a person; each area keeps its own. */
export const views: CliViews = {
  ...sessionViews,
  ...factViews,
  ...extractionViews,
  ...recallViews,
  ...wikiViews,
  ...dreamViews,
  ...doctorViews,
  ...historyImportViews,
};

/** CLI commands that are not one contract command. */
export const doorCommands: DoorCommand[] = [sessionsShow, factsImport, serveCommand, mcpCommand];
