import { z } from 'zod';
import { defineCommand } from './define';
import { settingsProblem } from '../schemas';

const dreamConfig = z.object({ enabled: z.boolean(), schedule: z.string() });

export const dreamCommands = {
  'dream.run': defineCommand({
    description:
      'Consolidate pending top-level sessions and daily notes into the wiki. One bounded batch, or with drain every pending item in bounded batches. Reports already_running when another run holds the Dream lock.',
    mutates: true,
    input: z
      .object({
        drain: z
          .boolean()
          .default(false)
          .describe('Repeat bounded batches until nothing is pending; otherwise one batch, like a scheduled run.'),
      })
      .strict(),
    output: z.object({
      status: z.enum(['completed', 'already_running']),
      sessionsProcessed: z.number().int(),
      notesProcessed: z.number().int(),
      remaining: z.number().int(),
      failed: z.number().int(),
      pagesWritten: z.number().int(),
    }),
  }),
  'dream.status': defineCommand({
    description:
      'Whether a run is in progress, the schedule, the next run, the last runs (from LOG.md) and what is pending.',
    mutates: false,
    input: z.object({}).strict(),
    output: z.object({
      running: z.boolean(),
      enabled: z.boolean(),
      schedule: z.string(),
      nextRunAt: z.number().int().nullable(),
      lastRuns: z.array(z.object({ at: z.string(), summary: z.string() })),
      pendingSessions: z.number().int(),
      pendingNotes: z.number().int(),
      /** settings.yaml keys that could not be used as written (each fell back to its default). */
      settingsProblems: z.array(settingsProblem),
    }),
  }),
  'dream.config.get': defineCommand({
    description: 'The Dream schedule settings: enabled and the 5-field cron expression (UTC).',
    mutates: false,
    input: z.object({}).strict(),
    output: dreamConfig,
  }),
  'dream.config.set': defineCommand({
    description:
      'Change the Dream schedule; the cron expression is validated, settings.yaml saved atomically and the scheduler reloaded.',
    mutates: true,
    input: z
      .object({
        enabled: z.boolean().optional().describe('Run Dream on its schedule (true) or only by hand (false).'),
        schedule: z
          .string()
          .trim()
          .min(1, 'must not be empty')
          .max(200)
          .optional()
          .describe('A 5-field cron expression in UTC, e.g. "0 2 * * *" (every day at 02:00).'),
      })
      .strict(),
    output: dreamConfig,
  }),
} as const;
