import type { SearchRequest } from '../memory/search';

/** Messages between the main thread and a read-lane worker. */
export interface ReadLaneWorkerData {
  dbPath: string;
  wikiDir: string;
  nativeBinding?: string;
}

export type ReadLaneRequest =
  | { id: number; task: 'recall'; args: { sessionId: string; text: string } }
  | { id: number; task: 'search'; args: SearchRequest }
  | { id: number; task: 'ping'; args: Record<string, never> }
  | { id: number; task: 'warm'; args: Record<string, never> };

export type ReadLaneResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { name: string; message: string; code?: string; field?: string } };
