import type { Handlers } from './types';
import { historyImportCommands } from '../../shared/commands/history-import';

export const historyImportHandlers: Handlers<typeof historyImportCommands> = {
  'import.conversations': (engine, input) => engine.historyImport.run(input),
  'import.status': (engine) => engine.historyImport.status(),
};
