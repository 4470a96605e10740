import type { Confidence, FactKind, Scope } from '../../../shared/domain';

/** One line of extractor input: a visible user or assistant message, or a compaction summary. */
export interface TranscriptEntry {
  messageId: string;
  seq: number;
  role: 'user' | 'assistant' | 'summary';
  /** Already cut to its per-line bound. */
  text: string;
  /** When the message was written (epoch ms): dates "last week" in a fact. */
  createdAt?: number;
}

/** The bounded window of messages after a cursor that one extraction run reads. */
export interface TranscriptWindow {
  sessionId: string;
  entries: TranscriptEntry[];
  /** Rendered as the extractor sees it ("User: ...", "Assistant: ...", "Prior summary: ..."). */
  text: string;
  /** The cursor after this window: the last message it covers, skipped rows included. */
  lastSeq: number;
  /** More eligible messages follow beyond the window's bounds. */
  truncated: boolean;
}

export const MAX_CANDIDATES = 8;

/** A fact an extractor proposes; the store validates, rejects secrets and coerces the scope. */
export interface Candidate {
  text: string;
  /** Unvalidated: an extractor may say anything; validation maps or rejects it. */
  kind: FactKind | string;
  scope: Scope | string;
  confidence: Confidence | string;
  /** The message the candidate came from; null = the window's last message. */
  messageId: string | null;
}

/** Transcript in, at most MAX_CANDIDATES candidate facts out. */
export interface Extractor {
  /** Shown in status: "rules" or "llm:<model>". */
  readonly name: string;
  extract(window: TranscriptWindow, signal: AbortSignal): Promise<Candidate[]>;
}

/** The extractor broke its contract (e.g. more than MAX_CANDIDATES memories): the run fails. */
export class ExtractorContractError extends Error {
  override name = 'ExtractorContractError';
}
