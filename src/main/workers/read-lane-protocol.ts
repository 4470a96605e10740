import type { SearchRequest } from '../memory/search';
import type { CompileCacheRef } from './launch';

/** Messages between the main thread and a read-lane worker. */
export interface ReadLaneWorkerData {
  dbPath: string;
  wikiDir: string;
  nativeBinding?: string;
}

/**
 * A worker's workerData: its data home's paths, or (a worker the launcher started before the data
 * home was known) `prestarted`, with the paths in an `init` message before its first task.
 */
export type ReadLaneWorkerBoot = (ReadLaneWorkerData | { prestarted: true }) & { compileCache?: CompileCacheRef };

/** The paths a prestarted worker is adopted with; it answers nothing. */
export interface ReadLaneInit {
  task: 'init';
  data: ReadLaneWorkerData;
}

export type ReadLaneRequest =
  | { id: number; task: 'recall'; args: { sessionId: string; text: string } }
  | { id: number; task: 'search'; args: SearchRequest }
  /** Some of a search's sources, best `limit` first with unrounded scores (see mergeSearchParts). */
  | { id: number; task: 'searchPart'; args: SearchRequest }
  | { id: number; task: 'ping'; args: Record<string, never> }
  | { id: number; task: 'warm'; args: Record<string, never> };

export type ReadLaneResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { name: string; message: string; code?: string; field?: string } };
