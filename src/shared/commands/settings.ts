import { z } from 'zod';
import { defineCommand } from './define';
import { settingsProblem } from '../schemas';

/**
 * What the settings screen edits in settings.yaml. Each value is checked here, so the window can
 * run the same schema to explain every invalid value inline before it saves; the cron
 * expression is checked by the engine (croner).
 */
const count = (what: string) =>
  z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(10_000, 'must be at most 10,000')
    .describe(what);

export const httpUrl = z
  .string()
  .trim()
  .max(2000, 'must be at most 2,000 characters')
  .refine((v) => v === '' || /^https?:\/\/[^\s/?#]+/i.test(v), {
    message:
      'must be an http:// or https:// address, e.g. http://127.0.0.1:11434/v1 (empty = built-in offline defaults)',
  });

export const editableSettings = z
  .object({
    recall: z
      .object({
        enabled: z
          .boolean()
          .describe('The memory switch for recall: off, agents get no remembered facts at the start of a turn'),
      })
      .partial()
      .strict()
      .optional()
      .describe('Automatic recall'),
    extraction: z
      .object({
        enabled: z
          .boolean()
          .describe('The memory switch for extraction: off, completed responses no longer start extraction'),
        firstAfter: count('The first extraction runs after this many completed responses'),
        every: count('Then one after every this many more'),
      })
      .partial()
      .strict()
      .optional()
      .describe('Background extraction'),
    llm: z
      .object({
        baseUrl: httpUrl.describe('OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1; empty = offline'),
        model: z.string().trim().max(200, 'must be at most 200 characters').describe('Model name on that endpoint'),
        apiKey: z
          .string()
          .trim()
          .max(500, 'must be at most 500 characters')
          .describe('Bearer key for the endpoint (or EVOFLUX_LLM_API_KEY); empty = none'),
        timeoutMs: z
          .number({ error: 'must be a number of milliseconds' })
          .int('must be a whole number of milliseconds')
          .min(100, 'must be at least 100 ms')
          .max(3_600_000, 'must be at most an hour')
          .describe('How long one model call may take'),
        maxRetries: z
          .number({ error: 'must be a number' })
          .int('must be a whole number')
          .min(0, 'must be 0 or more')
          .max(5, 'must be at most 5')
          .describe('Retries on network errors, 429 and 5xx'),
      })
      .partial()
      .strict()
      .optional()
      .describe('The model endpoint'),
    dream: z
      .object({
        enabled: z.boolean().describe('Run Dream on its schedule'),
        schedule: z
          .string()
          .trim()
          .min(1, 'must be a cron expression such as "0 2 * * *"')
          .max(200)
          .describe('5-field cron expression, in UTC'),
        model: z
          .string()
          .trim()
          .max(200, 'must be at most 200 characters')
          .describe('A model on llm.baseUrl that writes the pages; empty = the built-in consolidator'),
      })
      .partial()
      .strict()
      .optional()
      .describe('Dream consolidation'),
  })
  .strict();
export type EditableSettings = z.infer<typeof editableSettings>;

const settingsView = z.object({
  recall: z.object({ enabled: z.boolean() }),
  extraction: z.object({ enabled: z.boolean(), firstAfter: z.number().int(), every: z.number().int() }),
  llm: z.object({
    baseUrl: z.string(),
    model: z.string(),
    /** The key itself never leaves the engine; only whether one is set, and where. */
    apiKey: z.enum(['none', 'settings', 'environment']),
    timeoutMs: z.number().int(),
    maxRetries: z.number().int(),
  }),
  dream: z.object({ enabled: z.boolean(), schedule: z.string(), model: z.string() }),
});

export const settingsCommands = {
  'settings.get': defineCommand({
    description:
      'The settings people change (memory switches, extraction cadence, the model endpoint, Dream schedule), where settings.yaml and the data home are, and any problem reading the file.',
    mutates: false,
    input: () => z.object({}).strict(),
    output: () =>
      z.object({
        values: settingsView,
        file: z.string(),
        home: z.string(),
        /** Why settings.yaml could not be read at all (defaults are in use), or null. */
        fileError: z.string().nullable(),
        /** Each key that could not be used as written (it fell back to its default, or was ignored). */
        problems: z.array(settingsProblem),
      }),
  }),
  'settings.set': defineCommand({
    description:
      'Change settings: every given value is validated (the field is named when one is not), then settings.yaml is saved atomically keeping its comments and other keys, and the running app uses the new values.',
    mutates: true,
    input: () => z.object({ values: editableSettings.describe('Only the values to change') }).strict(),
    output: () => z.object({ values: settingsView }),
  }),
  'settings.testConnection': defineCommand({
    description:
      'Try the OpenAI-compatible endpoint: list its models (GET <baseUrl>/models) and say whether the model is there. Values left out come from settings.yaml. Changes nothing.',
    mutates: false,
    input: () =>
      z
        .object({
          baseUrl: httpUrl.optional().describe('The endpoint to try; default: llm.baseUrl'),
          model: z.string().trim().max(200).optional().describe('The model to look for; default: llm.model'),
          apiKey: z.string().trim().max(500).optional().describe('The key to send; default: the configured one'),
        })
        .strict(),
    output: () =>
      z.object({
        ok: z.boolean(),
        status: z.number().int().nullable(),
        message: z.string(),
        models: z.array(z.string()),
        modelFound: z.boolean().nullable(),
        /** The setting to fix when it failed, e.g. llm.baseUrl. */
        setting: z.string().nullable(),
        elapsedMs: z.number().int(),
      }),
  }),
} as const;
