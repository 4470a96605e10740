import type { Handlers } from './types';
import { dreamCommands } from '../../shared/commands/dream';

export const dreamHandlers: Handlers<typeof dreamCommands> = {
  'dream.run': (engine, { drain }) =>
    engine.dream.run({
      drain,
      onProgress: (done, total) => engine.events.emit('progress', { job: 'dream', unit: 'items', done, total }),
    }),
  'dream.status': (engine) => engine.dream.status(),
  'dream.config.get': (engine) => engine.dream.getConfig(),
  'dream.config.set': (engine, input) => engine.dream.setConfig(input),
};
