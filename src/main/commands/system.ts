import type { Handlers } from './types';
import { systemCommands } from '../../shared/commands/system';
import { runDoctor } from '../system/doctor';

export const systemHandlers: Handlers<typeof systemCommands> = {
  'system.doctor': (engine) => runDoctor(engine),
};
