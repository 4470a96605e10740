import { readFileSync, statSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';

/**
 * settings.yaml in the data home. Unknown keys are ignored; a value out of range is clamped by
 * its schema's default. Every section is optional so an empty file is valid.
 */
export const settingsSchema = z.object({
  /** The memory switch for automatic recall: off, turns and memory.recall inject no facts. */
  recall: z.object({ enabled: z.boolean().default(true) }).prefault({}),
  extraction: z
    .object({
      enabled: z.boolean().default(true),
      firstAfter: z.number().int().min(1).default(3),
      every: z.number().int().min(1).default(10),
      maxMessages: z.number().int().min(1).default(200),
      maxInputChars: z.number().int().min(1000).default(12_000),
      /** A claimed cursor is someone else's until this long after the claim (reference: 15 min). */
      leaseMs: z
        .number()
        .int()
        .min(1000)
        .default(15 * 60_000),
      /** Failed cursors are retried after retryBaseMs * 2^(failures-1), at most retryMaxMs. */
      retryBaseMs: z.number().int().min(0).default(60_000),
      retryMaxMs: z
        .number()
        .int()
        .min(0)
        .default(60 * 60_000),
      /** How often a long-running process looks for failed cursors whose backoff has passed; 0 = never. */
      retrySweepMs: z.number().int().min(0).default(60_000),
      /** Shutdown waits this long for running extractions, then cancels them (they record "failed"). */
      drainMs: z.number().int().min(0).default(10_000),
      /** A backlog larger than one window is worked through in up to this many windows per run. */
      maxWindowsPerRun: z.number().int().min(1).default(20),
      /** Token cap of one LLM extraction reply. */
      maxTokens: z.number().int().min(50).default(700),
      /** Import legacy notes (<home>/wiki/notes) in the background on the first startup after upgrading. */
      legacyImportOnStartup: z.boolean().default(true),
    })
    .prefault({}),
  llm: z
    .object({
      /** OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 for Ollama. Empty = built-in defaults. */
      baseUrl: z.string().default(''),
      model: z.string().default(''),
      /** Read from here or from EVOFLUX_LLM_API_KEY. */
      apiKey: z.string().default(''),
      timeoutMs: z.number().int().min(100).default(45_000),
      maxRetries: z.number().int().min(0).max(5).default(2),
    })
    .prefault({}),
  dream: z
    .object({
      enabled: z.boolean().default(false),
      schedule: z.string().default('0 2 * * *'),
      maxSourcesPerRun: z.number().int().min(1).default(20),
      maxInputChars: z.number().int().min(1000).default(60_000),
      /**
       * Empty: the built-in deterministic consolidator (offline). A model name: that model on the
       * llm.baseUrl endpoint writes the pages, through the wiki service only.
       */
      model: z.string().default(''),
      /** Per-source time limit for a model consolidator call. */
      modelTimeoutMs: z.number().int().min(1000).default(300_000),
    })
    .prefault({}),
});

export type Settings = z.infer<typeof settingsSchema>;

export const defaultSettings = (): Settings => settingsSchema.parse({});

export interface LoadedSettings {
  settings: Settings;
  mtimeMs: number | null;
  error: string | null;
}

/** A missing file gives defaults; a malformed one gives defaults plus the error, never a crash. */
export function loadSettings(file: string): LoadedSettings {
  let mtimeMs: number | null = null;
  try {
    mtimeMs = statSync(file).mtimeMs;
  } catch {
    return { settings: defaultSettings(), mtimeMs: null, error: null };
  }
  try {
    const raw = parse(readFileSync(file, 'utf8')) ?? {};
    const parsed = settingsSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { settings: defaultSettings(), mtimeMs, error: `${issue?.path.join('.')}: ${issue?.message}` };
    }
    return { settings: parsed.data, mtimeMs, error: null };
  } catch (e) {
    return { settings: defaultSettings(), mtimeMs, error: (e as Error).message };
  }
}
