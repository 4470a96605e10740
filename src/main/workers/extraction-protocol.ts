import type { Candidate, TranscriptEntry } from '../memory/extraction/types';

/** Messages between the engine and the rule extractor's child process (extraction.worker.ts). */
export interface ExtractionRequest {
  id: number;
  entries: TranscriptEntry[];
}

export type ExtractionResponse =
  { id: number; ok: true; candidates: Candidate[] } | { id: number; ok: false; error: string };
