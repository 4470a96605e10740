/**
 * A search split across two read-lane workers against the same search whole on one, measured in
 * this process on the bench's data home: two lanes, calls alternating between them so that the
 * machine's changing speed (up to 1.5x here between minutes) weighs on both alike.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createReadLane, type ReadLane } from '../../../src/main/workers/read-lane';
import { SEARCH_SOURCES } from '../../../src/main/memory/search';

export interface SplitFigures {
  split: number[];
  whole: number[];
  /** Searches the split lane answered on two workers. */
  splits: number;
}

export async function splitAgainstWhole(home: string, sessionId: string, queries: string[]): Promise<SplitFigures> {
  const open = (splitSearch: boolean) =>
    createReadLane({
      dbPath: path.join(home, 'memory.db'),
      wikiDir: path.join(home, 'wiki'),
      size: 2,
      splitSearch,
    });
  const lanes: Record<'split' | 'whole', ReadLane> = { split: open(true), whole: open(false) };
  const times: Record<'split' | 'whole', number[]> = { split: [], whole: [] };
  const search = (lane: ReadLane, query: string) =>
    lane.search({ sessionId, query, limit: 8, sources: [...SEARCH_SOURCES] });
  try {
    // Both lanes' workers up and past their first calls (the split lane's second worker starts here).
    for (let i = 0; i < 40; i++)
      for (const lane of Object.values(lanes)) await search(lane, queries[i % queries.length]!);
    for (let i = 0; i < queries.length; i++) {
      for (const key of i % 2 ? (['split', 'whole'] as const) : (['whole', 'split'] as const)) {
        const t0 = performance.now();
        await search(lanes[key], queries[i]!);
        times[key].push(performance.now() - t0);
      }
    }
    return { ...times, splits: lanes.split.splitSearches() };
  } finally {
    await Promise.all(Object.values(lanes).map((lane) => lane.close()));
  }
}
