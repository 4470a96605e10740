import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { z } from 'zod';
import type { Engine } from '../engine';
import type { doctorReport } from '../../shared/commands/system';
import { currentNativeBinding, sqliteVersion } from '../store/db';
import { extractionStateCounts } from '../store/extraction-states';
import { migrations } from '../store/migrations';
import { schemaVersion } from '../store/migrate';
import { pendingPurges } from '../store/recall-index';
import { legacyImportPending } from '../memory/legacy-import';
import { countPendingExtraction } from '../store/imports';
import { countLegacyImportedSessions } from '../store/legacy-import-sessions';
import { FileLock } from '../wiki/file-lock';
import { loadSettings } from '../settings';
import { processKind } from '../log';
import { APP_VERSION } from '../version';

export type DoctorReport = z.infer<typeof doctorReport>;

/** A read lane that does not answer within this long is reported broken. */
const READ_LANE_TIMEOUT_MS = 10_000;

const sizeOf = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

async function readLaneRoundTrip(engine: Engine): Promise<DoctorReport['readLane']> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${READ_LANE_TIMEOUT_MS} ms`)), READ_LANE_TIMEOUT_MS);
  });
  try {
    await Promise.race([engine.readLane.ping(), timeout]);
    return { ok: true, roundTripMs: Math.round((performance.now() - started) * 10) / 10, error: null };
  } catch (e) {
    return { ok: false, roundTripMs: null, error: (e as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/** Every lock in <home>/locks and who holds it (a holder that died is shown as not held). */
async function lockHolders(locksDir: string): Promise<DoctorReport['locks']> {
  let names: string[];
  try {
    names = readdirSync(locksDir)
      .filter((f) => f.endsWith('.lock'))
      .map((f) => f.slice(0, -'.lock'.length));
  } catch {
    return [];
  }
  return Promise.all(
    names.sort().map(async (name) => {
      const lock = new FileLock(path.join(locksDir, name));
      const held = await lock.isHeld().catch(() => false);
      const owner = held ? lock.readOwner() : null;
      return {
        name,
        held,
        pid: owner?.pid ?? null,
        host: owner?.host ?? null,
        purpose: owner?.purpose ?? null,
        since: owner?.acquiredAt ?? null,
      };
    }),
  );
}

function extractionCounts(engine: Engine): DoctorReport['pending']['extraction'] {
  return extractionStateCounts(engine.db);
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The database's files and the WAL checkpoints this process ran between requests. */
function databaseReport(engine: Engine): DoctorReport['database'] {
  const { runs, failures, lastMs, lastError } = engine.walCheckpoints.stats;
  const file = engine.paths.db;
  return {
    path: file,
    bytes: sizeOf(file),
    walBytes: sizeOf(`${file}-wal`),
    walCheckpoints: { runs, failures, lastMs, lastError },
  };
}

/** The health check behind `system.doctor`, `evoflux-memory doctor` and `GET /api/health`. */
export async function runDoctor(engine: Engine): Promise<DoctorReport> {
  const { paths, db } = engine;
  const problems: string[] = [];
  const warnings: string[] = [];
  const latest = Math.max(...migrations.map((m) => m.version));
  const version = schemaVersion(db);
  if (version !== latest) problems.push(`database schema is at version ${version}, this build expects ${latest}`);
  const readLane = await readLaneRoundTrip(engine);
  if (!readLane.ok) problems.push(`read lane (recall and search) does not answer: ${readLane.error}`);
  for (const dir of [paths.root, paths.wiki, paths.logs]) {
    if (!writable(dir)) problems.push(`${dir} is not writable`);
  }
  const settings = loadSettings(paths.settings).problems;
  for (const p of settings) warnings.push(`settings: ${p.key} ${p.reason}`);
  const locks = await lockHolders(paths.locks);
  const pending = {
    extraction: extractionCounts(engine),
    legacyImport: {
      pending: legacyImportPending(paths),
      sessionsImported: countLegacyImportedSessions(db),
    },
    indexMaintenance: { factIndexPurges: pendingPurges(db) },
    historyImport: { extractionOwed: countPendingExtraction(db) },
  };
  // Recorded for whoever looks at the log later (the caller shows them now, so not on stderr).
  if (problems.length) engine.log.info(`doctor: broken: ${problems.join('; ')}`);
  const database = databaseReport(engine);
  if (database.walCheckpoints.lastError !== null)
    warnings.push(
      `WAL checkpoints between requests: ${database.walCheckpoints.lastError} (the writer checkpoints itself meanwhile)`,
    );
  if (pending.extraction.failed > 0)
    warnings.push(`extraction: ${pending.extraction.failed} session(s) failed and wait for a retry`);
  return {
    ok: problems.length === 0,
    problems,
    warnings,
    version: APP_VERSION,
    node: process.version,
    process: { kind: processKind(), pid: process.pid },
    home: paths.root,
    schema: { version, latest },
    database,
    readLane,
    nativeBinding: {
      path: currentNativeBinding() ?? null,
      sqliteVersion: sqliteVersion(db),
    },
    locks,
    pending,
    settings: { file: paths.settings, problems: settings },
    log: { file: engine.log.file, bytes: sizeOf(engine.log.file) },
  };
}
