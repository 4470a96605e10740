import type { ImportSource } from '../../store/imports';

export type { ImportSource } from '../../store/imports';

/** The format of a file to import; `auto` looks at the file. */
export const IMPORT_FORMATS = ['auto', 'chatgpt', 'claude', 'jsonl'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** A session's context, as sessions.create takes it. */
export interface ImportContext {
  projectId: string | null;
  workspace: string | null;
  folderId: string | null;
}

/** One message of a conversation, as the export has it, after filtering. */
export interface ParsedMessage {
  /** The original message id, or a stable hash of the message where the format has none. */
  key: string;
  role: 'user' | 'assistant';
  content: string;
  /** Epoch ms as the export says, or null when it says nothing usable. */
  createdAt: number | null;
}

/** One conversation of an export, ready to import. */
export interface ParsedConversation {
  source: ImportSource;
  originalId: string;
  title: string | null;
  /** Epoch ms, or null when the export has none. */
  createdAt: number | null;
  messages: ParsedMessage[];
  /** Messages left out: system, tool, hidden, tool calls, non-text content. */
  skippedMessages: number;
  /** JSONL lines may carry their own context; it wins over the one chosen for the import. */
  context: Partial<ImportContext> | null;
  /** Where it starts in the file, for messages: `conversation 12 (byte 40960)` or `line 7`. */
  position: string;
}

/**
 * A conversation that could not be imported (nothing of it was written), or a file that could not
 * be read at all: the message names the file and the position.
 */
export class ImportInputError extends Error {
  constructor(
    readonly file: string,
    readonly position: string,
    readonly reason: string,
  ) {
    super(`${file}: ${position}: ${reason}`);
    this.name = 'ImportInputError';
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An export's text field: strings only, trimmed; anything else is no text. */
export const textOf = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
