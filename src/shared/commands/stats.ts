import { z } from 'zod';
import { defineCommand } from './define';
import { factKind, recallMode, scope } from '../schemas';

const day = z.string().describe("YYYY-MM-DD in the caller's time zone");

export const statsCommands = {
  'stats.overview': defineCommand({
    description:
      'Figures for the overview: facts by scope, kind and recall mode; facts, evidence and sessions per day; extraction runs and failures per day; the last Dream runs and pages written; the data home size.',
    mutates: false,
    input: () =>
      z
        .object({
          days: z.number().int().min(1).max(366).default(30).describe('How many days back the daily series go'),
          utcOffsetMinutes: z
            .number()
            .int()
            .min(-14 * 60)
            .max(14 * 60)
            .default(0)
            .describe('Minutes to add to UTC for local days (e.g. 120 for UTC+2); days are counted in that zone'),
        })
        .strict(),
    output: () =>
      z.object({
        totals: z.object({
          facts: z.number().int(),
          evidence: z.number().int(),
          sessions: z.number().int(),
          messages: z.number().int(),
        }),
        byScope: z.array(z.object({ scope, facts: z.number().int(), contexts: z.number().int() })),
        byKind: z.array(z.object({ kind: factKind, facts: z.number().int() })),
        byRecall: z.array(z.object({ recall: recallMode, facts: z.number().int() })),
        growth: z.array(
          z.object({
            day,
            facts: z.number().int(),
            evidence: z.number().int(),
            sessions: z.number().int(),
            /** Facts that exist now and were first seen by the end of this day. */
            factsTotal: z.number().int(),
          }),
        ),
        extraction: z.object({
          days: z.array(
            z.object({ day, runs: z.number().int(), failed: z.number().int(), factsStored: z.number().int() }),
          ),
          failingNow: z.number().int(),
        }),
        dream: z.array(
          z.object({
            at: z.string(),
            sessions: z.number().int().nullable(),
            notes: z.number().int().nullable(),
            failed: z.number().int().nullable(),
            pagesWritten: z.number().int().nullable(),
          }),
        ),
        storage: z.object({
          home: z.string(),
          databaseBytes: z.number().int(),
          wikiBytes: z.number().int(),
          otherBytes: z.number().int(),
          totalBytes: z.number().int(),
        }),
      }),
  }),
} as const;
