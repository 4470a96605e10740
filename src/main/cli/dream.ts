import { call, flag, fmtTime, str, type CliCommand } from './framework';
import { invalid } from '../../shared/errors';
import { lintText } from './wiki';

export const dreamCli: CliCommand[] = [
  {
    path: ['dream', 'run'],
    summary: 'consolidate pending sessions and notes into the wiki now (all of them, in bounded batches)',
    usage: '[--once]   (--once: a single bounded batch, like a scheduled run)',
    options: { once: { type: 'boolean' } },
    run: async (ctx, v) => {
      const r = await call(ctx, 'dream.run', { drain: flag(v, 'once') ? false : true });
      const text =
        r.status === 'already_running'
          ? `a Dream run is already in progress (another process holds the lock); ${r.remaining} item(s) pending`
          : r.sessionsProcessed + r.notesProcessed + r.failed === 0
            ? 'nothing to process'
            : `${r.sessionsProcessed} session(s), ${r.notesProcessed} note(s) processed; ${r.failed} failed; ` +
              `${r.pagesWritten} page(s) written; ${r.remaining} remaining`;
      return { data: r, text };
    },
  },
  {
    path: ['dream', 'status'],
    summary: 'whether Dream is running, its schedule, the last runs and what is pending',
    usage: '',
    run: async (ctx) => {
      const s = await call(ctx, 'dream.status', {});
      const text = [
        `running:   ${s.running ? 'yes' : 'no'}`,
        `schedule:  ${s.enabled ? 'enabled' : 'disabled'} "${s.schedule}" (UTC)`,
        `next run:  ${s.nextRunAt !== null ? fmtTime(s.nextRunAt) : '-'}`,
        `pending:   ${s.pendingSessions} session(s), ${s.pendingNotes} note(s)`,
        'last runs:',
        ...(s.lastRuns.length ? s.lastRuns.map((r) => `  ${r.at}  ${r.summary}`) : ['  (none)']),
      ].join('\n');
      return { data: s, text };
    },
  },
  {
    path: ['dream', 'lint'],
    summary: 'check the wiki and write LINT.md',
    usage: '',
    run: async (ctx) => {
      const r = await call(ctx, 'wiki.lint', {});
      return { data: r, text: lintText(r) };
    },
  },
  {
    path: ['dream', 'config'],
    summary: 'show or change the Dream schedule (saved in settings.yaml)',
    usage: '[--enabled true|false] [--schedule "0 2 * * *"]',
    options: { enabled: { type: 'string' }, schedule: { type: 'string' } },
    run: async (ctx, v) => {
      const enabledText = str(v, 'enabled');
      let enabled: boolean | undefined;
      if (enabledText !== undefined) {
        if (!['true', 'false'].includes(enabledText)) throw invalid('enabled', '--enabled must be true or false');
        enabled = enabledText === 'true';
      }
      const schedule = str(v, 'schedule');
      const r =
        enabled === undefined && schedule === undefined
          ? await call(ctx, 'dream.config.get', {})
          : await call(ctx, 'dream.config.set', { enabled, schedule });
      return { data: r, text: `${r.enabled ? 'enabled' : 'disabled'} "${r.schedule}" (UTC)` };
    },
  },
];
