import { fmtTime, type CliViews } from './framework';

const configText = (r: { enabled: boolean; schedule: string }) =>
  `${r.enabled ? 'enabled' : 'disabled'} "${r.schedule}" (UTC)`;

export const dreamViews: CliViews = {
  'dream.run': {
    text: (r) =>
      r.status === 'already_running'
        ? `a Dream run is already in progress (another process holds the lock); ${r.remaining} item(s) pending`
        : r.sessionsProcessed + r.notesProcessed + r.failed === 0
          ? 'nothing to process'
          : `${r.sessionsProcessed} session(s), ${r.notesProcessed} note(s) processed; ${r.failed} failed; ` +
            `${r.pagesWritten} page(s) written; ${r.remaining} remaining`,
  },
  'dream.status': {
    text: (s) =>
      [
        `running:   ${s.running ? 'yes' : 'no'}`,
        `schedule:  ${s.enabled ? 'enabled' : 'disabled'} "${s.schedule}" (UTC)`,
        `next run:  ${s.nextRunAt !== null ? fmtTime(s.nextRunAt) : '-'}`,
        `pending:   ${s.pendingSessions} session(s), ${s.pendingNotes} note(s)`,
        'last runs:',
        ...(s.lastRuns.length ? s.lastRuns.map((r) => `  ${r.at}  ${r.summary}`) : ['  (none)']),
      ].join('\n'),
  },
  'dream.config.get': { text: configText },
  'dream.config.set': { text: configText },
};
