import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Handlers } from './types';
import { statsCommands } from '../../shared/commands/stats';
import { dayWindow, extractionRuns, factsByKind, factsByRecall, factsByScope, growth, totals } from '../store/stats';
import { lastRunsFromLog } from '../dream/service';

/** Bytes under a folder (not following symlinks), bounded in depth. */
function folderBytes(dir: string, depth = 4): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) total += depth > 0 ? folderBytes(full, depth - 1) : 0;
    else if (e.isFile()) total += lstatSync(full, { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}

function storage(paths: { root: string; db: string; wiki: string }) {
  const file = (f: string) => lstatSync(f, { throwIfNoEntry: false })?.size ?? 0;
  const databaseBytes = file(paths.db) + file(`${paths.db}-wal`) + file(`${paths.db}-shm`);
  const wikiBytes = folderBytes(paths.wiki);
  const totalBytes = folderBytes(paths.root);
  return {
    home: paths.root,
    databaseBytes,
    wikiBytes,
    otherBytes: Math.max(0, totalBytes - databaseBytes - wikiBytes),
    totalBytes,
  };
}

export const statsHandlers: Handlers<typeof statsCommands> = {
  'stats.overview': (engine, { days, utcOffsetMinutes }) => {
    const window = dayWindow(engine.clock.now(), days, utcOffsetMinutes);
    const counts = totals(engine.db);
    return {
      totals: counts,
      byScope: factsByScope(engine.db),
      byKind: factsByKind(engine.db),
      byRecall: factsByRecall(engine.db, counts.facts),
      growth: growth(engine.db, window),
      extraction: extractionRuns(engine.db, window),
      dream: lastRunsFromLog(engine.wiki.tryRead('LOG.md')?.content ?? null, 30)
        .reverse()
        .map((r) => ({
          at: r.at,
          sessions: r.sessions,
          notes: r.notes,
          failed: r.failed,
          pagesWritten: r.pagesWritten,
        })),
      storage: storage(engine.paths),
    };
  },
};
