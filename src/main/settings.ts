import { readFileSync, statSync } from 'node:fs';
import { yaml } from './lazy-deps';
import { z } from 'zod';
import { DEFAULT_LOG_MAX_BYTES, LOG_LEVELS } from './log';
import { parseSchedule } from './dream/cron';

/**
 * settings.yaml in the data home. Every section and key is optional, so an empty file is valid.
 * Each key is checked on its own: a bad value falls back to that key's default (and is
 * reported), never resetting the keys around it.
 */
function isCronExpression(text: string): boolean {
  try {
    parseSchedule(text).stop();
    return true;
  } catch {
    return false;
  }
}

const extractionFields = {
  enabled: z.boolean().default(true),
  firstAfter: z.number().int().min(1).default(3),
  every: z.number().int().min(1).default(10),
  maxMessages: z.number().int().min(1).default(200),
  maxInputChars: z.number().int().min(1000).default(12_000),
  /** A claimed cursor is someone else's until this long after the claim (15 minutes by default). */
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
};

const llmFields = {
  /** OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 for Ollama. Empty = built-in defaults. */
  baseUrl: z.string().default(''),
  model: z.string().default(''),
  /** Read from here or from EVOFLUX_LLM_API_KEY. */
  apiKey: z.string().default(''),
  timeoutMs: z.number().int().min(100).default(45_000),
  maxRetries: z.number().int().min(0).max(5).default(2),
};

const dreamFields = {
  enabled: z.boolean().default(false),
  schedule: z
    .string()
    .refine(isCronExpression, 'is not a valid 5-field cron expression (minute hour day month weekday, UTC)')
    .default('0 2 * * *'),
  maxSourcesPerRun: z.number().int().min(1).default(20),
  maxInputChars: z.number().int().min(1000).default(60_000),
  /**
   * Empty: the built-in deterministic consolidator (offline). A model name: that model on the
   * llm.baseUrl endpoint writes the pages, through the wiki service only.
   */
  model: z.string().default(''),
  /** Per-source time limit for a model consolidator call. */
  modelTimeoutMs: z.number().int().min(1000).default(300_000),
};

const logFields = {
  /** Lines below this level are not written to <home>/logs/evoflux.log (EVOFLUX_LOG_LEVEL overrides). */
  level: z.enum(LOG_LEVELS).default('info'),
  /** The log file is rotated past this size; three rotated files are kept. */
  maxFileBytes: z
    .number()
    .int()
    .min(64 * 1024)
    .default(DEFAULT_LOG_MAX_BYTES),
};

/** 1 GiB: far above a heavy user's ChatGPT or Claude conversations.json, far below what would hurt. */
export const DEFAULT_IMPORT_MAX_FILE_BYTES = 1024 * 1024 * 1024;

const importFields = {
  /** Largest conversation export `import conversations` reads or the HTTP door accepts as an upload. */
  maxFileBytes: z.number().int().min(1024).default(DEFAULT_IMPORT_MAX_FILE_BYTES),
  /** Long-running processes extract over imported sessions in the background (extraction.enabled too). */
  extractInBackground: z.boolean().default(true),
};

/** The memory switch for automatic recall: off, turns and memory.recall inject no facts. */
const recallFields = { enabled: z.boolean().default(true) };

/** The desktop app's loopback HTTP door (JSON API, MCP at /mcp, the window in a browser). */
const httpFields = {
  /** Start it with the desktop app (`serve` always serves). */
  enabled: z.boolean().default(true),
  /** Its port; when taken (say by `serve` on the same machine), the app picks a free one and says so in http-server.json. */
  port: z.number().int().min(0).max(65_535).default(7437),
  /** An MCP session over HTTP with no request and no open stream for this long is closed. */
  mcpIdleMs: z
    .number()
    .int()
    .min(10_000)
    .default(30 * 60_000),
};

const SECTIONS = {
  recall: recallFields,
  extraction: extractionFields,
  llm: llmFields,
  dream: dreamFields,
  log: logFields,
  import: importFields,
  http: httpFields,
};

export const settingsSchema = z.object({
  recall: z.object(recallFields).prefault({}),
  extraction: z.object(extractionFields).prefault({}),
  llm: z.object(llmFields).prefault({}),
  dream: z.object(dreamFields).prefault({}),
  log: z.object(logFields).prefault({}),
  import: z.object(importFields).prefault({}),
  http: z.object(httpFields).prefault({}),
});

export type Settings = z.infer<typeof settingsSchema>;

/** Key by key, like a file: an object-level parse would make zod generate code, a cost at every start. */
export const defaultSettings = (): Settings => parseSettings({}, '').settings;

/** One thing wrong in settings.yaml: which file, which key (`dream.maxSourcesPerRun`), and why. */
export interface SettingsProblem {
  file: string;
  key: string;
  reason: string;
}

/** The key a problem with the whole file is reported under (unreadable YAML, not a mapping). */
export const FILE_KEY = '(file)';

export interface LoadedSettings {
  settings: Settings;
  mtimeMs: number | null;
  /** Each bad key (its default is used instead) and each unknown key (ignored). */
  problems: SettingsProblem[];
}

type Raw = Record<string, unknown>;
const isMapping = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const shown = (v: unknown) => (v === null || v === undefined ? 'no value' : JSON.stringify(v));

function parseSection(
  file: string,
  name: keyof typeof SECTIONS,
  raw: unknown,
  problems: SettingsProblem[],
): Record<string, unknown> {
  const fields: Record<string, z.ZodType> = SECTIONS[name];
  let values: Raw = {};
  if (isMapping(raw)) values = raw;
  else if (raw !== undefined && raw !== null) {
    problems.push({
      file,
      key: name,
      reason: `must be a mapping of keys (got ${shown(raw)}); every ${name} key uses its default`,
    });
  }
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(fields)) {
    const parsed = schema.safeParse(values[key]);
    if (parsed.success) {
      out[key] = parsed.data;
      continue;
    }
    out[key] = schema.parse(undefined);
    const why = parsed.error.issues[0]?.message ?? 'invalid';
    problems.push({
      file,
      key: `${name}.${key}`,
      reason: `${why} (got ${shown(values[key])}); using the default ${shown(out[key])}`,
    });
  }
  for (const key of Object.keys(values)) {
    if (!Object.hasOwn(fields, key))
      problems.push({ file, key: `${name}.${key}`, reason: 'is not a known setting (ignored)' });
  }
  return out;
}

/** Parsed settings: every valid key kept, every bad one at its default and reported. */
export function parseSettings(raw: unknown, file: string): { settings: Settings; problems: SettingsProblem[] } {
  const problems: SettingsProblem[] = [];
  let top: Raw = {};
  if (isMapping(raw)) top = raw;
  else if (raw !== undefined && raw !== null) {
    problems.push({
      file,
      key: FILE_KEY,
      reason: `must be a mapping of sections (got ${shown(raw)}); using the defaults`,
    });
  }
  const settings = {} as Record<string, unknown>;
  for (const name of Object.keys(SECTIONS) as (keyof typeof SECTIONS)[]) {
    settings[name] = parseSection(file, name, top[name], problems);
  }
  for (const key of Object.keys(top)) {
    if (!Object.hasOwn(SECTIONS, key))
      problems.push({ file, key, reason: 'is not a known settings section (ignored)' });
  }
  return { settings: settings as Settings, problems };
}

/** A missing file gives defaults; a malformed one gives defaults plus the problem, never a crash. */
export function loadSettings(file: string): LoadedSettings {
  const mtimeMs = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
  if (mtimeMs === undefined) return { settings: defaultSettings(), mtimeMs: null, problems: [] };
  let raw: unknown;
  try {
    raw = yaml().parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const reason = `cannot be parsed as YAML, so every setting uses its default: ${(e as Error).message.split('\n')[0]}`;
    return { settings: defaultSettings(), mtimeMs, problems: [{ file, key: FILE_KEY, reason }] };
  }
  return { ...parseSettings(raw, file), mtimeMs };
}

/** Whether `key` (`dream.schedule`) was read from the file as written (no problem reported for it). */
export const settingIsValid = (problems: SettingsProblem[], key: string): boolean =>
  !problems.some((p) => p.key === key || p.key === FILE_KEY || key.startsWith(`${p.key}.`));
