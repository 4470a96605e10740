import { z } from 'zod';
import { defineCommand } from './define';
import { settingsProblem } from '../schemas';

const count = z.number().int();

/** What the health check found; `ok` is false when something is broken (then `problems` says what). */
export const doctorReport = z.object({
  ok: z.boolean(),
  problems: z.array(z.string()),
  warnings: z.array(z.string()),
  version: z.string(),
  node: z.string(),
  process: z.object({ kind: z.string(), pid: count }),
  home: z.string(),
  schema: z.object({ version: count, latest: count }),
  database: z.object({
    path: z.string(),
    bytes: count,
    walBytes: count,
    /** This process's WAL checkpoints between requests: how many ran, failed, and the last one's time and error. */
    walCheckpoints: z.object({
      runs: count,
      failures: count,
      lastMs: z.number().nullable(),
      lastError: z.string().nullable(),
    }),
  }),
  readLane: z.object({ ok: z.boolean(), roundTripMs: z.number().nullable(), error: z.string().nullable() }),
  nativeBinding: z.object({
    /** null: the better-sqlite3 build in node_modules (Node's); else the file in use (Electron's ABI). */
    path: z.string().nullable(),
    sqliteVersion: z.string(),
  }),
  locks: z.array(
    z.object({
      name: z.string(),
      held: z.boolean(),
      pid: count.nullable(),
      host: z.string().nullable(),
      purpose: z.string().nullable(),
      since: count.nullable(),
    }),
  ),
  pending: z.object({
    extraction: z.object({ processing: count, failed: count }),
    legacyImport: z.object({ pending: z.boolean(), sessionsImported: count }),
    indexMaintenance: z.object({ factIndexPurges: count }),
    /** Imported conversations (import conversations) extraction has not worked through yet. */
    historyImport: z.object({ extractionOwed: count }),
  }),
  settings: z.object({ file: z.string(), problems: z.array(settingsProblem) }),
  log: z.object({ file: z.string(), bytes: count }),
});

export const systemCommands = {
  'system.doctor': defineCommand({
    description:
      'Health check of this data home: version, schema, database and WAL size, a read-lane round trip, the SQLite binding in use, lock holders, pending background work (extraction, legacy import, index maintenance, extraction owed to imported conversations) and settings.yaml problems. ok is false, with the reasons in problems, when something is broken.',
    mutates: false,
    input: () => z.object({}).strict(),
    output: () => doctorReport,
  }),
} as const;
