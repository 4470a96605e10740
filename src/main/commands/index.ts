import type { Contract } from '../../shared/contract';
import type { Handlers } from './types';
import { sessionHandlers } from './sessions';
import { factHandlers } from './facts';
import { extractionHandlers } from './extraction';
import { agentHandlers } from './agent';
import { agentWikiHandlers } from './agent-wiki';
import { agentSessionHandlers } from './agent-sessions';

import { recallHandlers } from './recall';
import { turnHandlers } from './turns';

import { wikiHandlers } from './wiki';
import { dreamHandlers } from './dream';
import { systemHandlers } from './system';
import { citationHandlers } from './citations';
import { settingsHandlers } from './settings';
import { statsHandlers } from './stats';
import { historyImportHandlers } from './history-import';

/** One handler per contract command; the type makes a missing one a compile error. */
export const handlers: Handlers<Contract> = {
  ...sessionHandlers,
  ...factHandlers,
  ...extractionHandlers,
  ...agentHandlers,
  ...agentWikiHandlers,
  ...agentSessionHandlers,
  ...recallHandlers,
  ...turnHandlers,
  ...wikiHandlers,
  ...dreamHandlers,
  ...systemHandlers,
  ...citationHandlers,
  ...settingsHandlers,
  ...statsHandlers,
  ...historyImportHandlers,
};
