import type { Handlers } from './types';
import { dreamCommands } from '../../shared/commands/dream';
import { getSession } from '../store/sessions';
import { countPendingSessions, pendingNotes, pendingSessions } from '../dream/queue';

export const dreamHandlers: Handlers<typeof dreamCommands> = {
  'dream.run': (engine, { drain }) =>
    engine.dream.run({
      drain,
      onProgress: (done, total) => engine.events.emit('progress', { job: 'dream', unit: 'items', done, total }),
    }),
  'dream.status': (engine) => engine.dream.status(),
  'dream.pending': (engine, { limit }) => {
    const sessions = pendingSessions(engine.db, limit);
    return {
      sessions: sessions.map((s) => ({
        id: s.id,
        title: getSession(engine.db, s.id)?.title ?? null,
        createdAt: s.createdAt,
        reason:
          s.processedAt === null
            ? ('new' as const)
            : s.latestVisibleAt !== null && s.latestVisibleAt > s.processedAt
              ? ('messages' as const)
              : ('evidence' as const),
      })),
      totalSessions: countPendingSessions(engine.db),
      notes: pendingNotes(engine.db, engine.wiki).map((n) => ({ name: n.name, path: `notes/${n.name}` })),
    };
  },
  'dream.config.get': (engine) => engine.dream.getConfig(),
  'dream.config.set': (engine, input) => engine.dream.setConfig(input),
};
