import { existsSync, openSync, readSync, closeSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CommandError, invalid } from '../../../shared/errors';
import { isChatGptConversation, parseChatGptConversation } from './chatgpt';
import { isClaudeConversation, parseClaudeConversation } from './claude';
import { ConversationRejected } from './convert';
import { streamJsonArray } from './json-array-stream';
import { groupJsonl } from './jsonl';
import { streamLines } from './line-stream';
import { ImportInputError, type ImportFormat, type ImportSource, type ParsedConversation } from './types';

/** One conversation is held in memory whole while it is imported; larger ones are refused. */
export const MAX_CONVERSATION_BYTES = 128 * 1024 * 1024;
/** A JSONL line is one message. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

export interface ImportFile {
  path: string;
  bytes: number;
}

const JSONL_EXTENSIONS = ['.jsonl', '.ndjson'];
const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(bytes >= 1024 ** 3 ? 1 : 3)} GiB`;

function checkedFile(file: string, maxFileBytes: number): ImportFile {
  const st = statSync(file);
  if (!st.isFile()) throw invalid('from', `is not a regular file: ${file}`);
  if (st.size > maxFileBytes) {
    throw new ImportInputError(
      file,
      `byte ${maxFileBytes}`,
      `the file is ${gib(st.size)}, above the import limit of ${gib(maxFileBytes)} (import.maxFileBytes in settings.yaml)`,
    );
  }
  return { path: file, bytes: st.size };
}

/**
 * `--from`: a conversations.json or .jsonl file, or the unpacked export folder (its
 * conversations.json), or a folder of .jsonl files (all of them, by name).
 */
export function resolveImportFiles(from: string, maxFileBytes: number): ImportFile[] {
  const home = from === '~' || from.startsWith('~/') || from.startsWith('~\\');
  const target = path.resolve(home ? path.join(os.homedir(), from.slice(1)) : from);
  if (!existsSync(target)) throw new CommandError('not_found', `from: no such file or folder: ${target}`, 'from');
  if (!statSync(target).isDirectory()) return [checkedFile(target, maxFileBytes)];
  const exported = path.join(target, 'conversations.json');
  if (existsSync(exported)) return [checkedFile(exported, maxFileBytes)];
  const jsonl = readdirSync(target)
    .filter((f) => JSONL_EXTENSIONS.includes(path.extname(f).toLowerCase()))
    .sort()
    .map((f) => checkedFile(path.join(target, f), maxFileBytes));
  if (jsonl.length === 0) throw invalid('from', `has no conversations.json and no .jsonl files: ${target}`);
  return jsonl;
}

/** The first byte that is not whitespace or a byte-order mark, and where it is. */
function firstSignificantByte(file: string): { byte: number; offset: number } | null {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    let offset = 0;
    for (let n = readSync(fd, buf, 0, buf.length, 0); n > 0; n = readSync(fd, buf, 0, buf.length, offset)) {
      for (let i = 0; i < n; i++) {
        const b = buf[i]!;
        const bom = offset + i < 3 && [0xef, 0xbb, 0xbf][offset + i] === b;
        if (!bom && b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return { byte: b, offset: offset + i };
      }
      offset += n;
    }
    return null;
  } finally {
    closeSync(fd);
  }
}

export type FileShape = 'json-array' | 'jsonl';

/** JSON exports are arrays; JSONL starts with an object. Anything else is refused with its offset. */
export function fileShape(file: string, format: ImportFormat): FileShape {
  const first = firstSignificantByte(file);
  if (!first) throw new ImportInputError(file, 'byte 0', 'is empty');
  const shape: FileShape | null = first.byte === 0x5b ? 'json-array' : first.byte === 0x7b ? 'jsonl' : null;
  const at = `byte ${first.offset}`;
  if (!shape) {
    throw new ImportInputError(
      file,
      at,
      'is not JSON (a ChatGPT or Claude export is a JSON array, a transcript has one JSON object per line)',
    );
  }
  if (format === 'jsonl' && shape === 'json-array') {
    throw new ImportInputError(file, at, 'is a JSON array, not JSONL: leave --format out or use chatgpt or claude');
  }
  if ((format === 'chatgpt' || format === 'claude') && shape === 'jsonl') {
    throw new ImportInputError(file, at, `is not a JSON array of conversations, so it is not a ${format} export`);
  }
  return shape;
}

/** One conversation to import, or one that cannot be (with where it is and why). */
export type ImportItem =
  | { ok: true; conversation: ParsedConversation }
  | { ok: false; position: string; conversationId: string | null; reason: string };

export interface ReadOptions {
  onBytes?(bytesRead: number): void;
  signal?: AbortSignal;
  /** Told once the format is known (a JSON export's from its first conversation). */
  onFormat?(format: ImportSource): void;
  chunkBytes?: number;
}

const PARSERS = { chatgpt: parseChatGptConversation, claude: parseClaudeConversation } as const;

function exportFormatOf(file: string, requested: ImportFormat, first: unknown, position: string): 'chatgpt' | 'claude' {
  const looks = isChatGptConversation(first) ? 'chatgpt' : isClaudeConversation(first) ? 'claude' : null;
  if (requested === 'chatgpt' || requested === 'claude') {
    if (looks && looks !== requested) {
      throw new ImportInputError(
        file,
        position,
        `looks like a ${looks} conversation, not ${requested}: leave --format out or use ${looks}`,
      );
    }
    return requested;
  }
  if (!looks) {
    throw new ImportInputError(
      file,
      position,
      'is neither a ChatGPT conversation (with "mapping") nor a Claude one (with "chat_messages")',
    );
  }
  return looks;
}

async function* readJsonExport(
  file: string,
  requested: ImportFormat,
  options: ReadOptions,
): AsyncGenerator<ImportItem> {
  let format: 'chatgpt' | 'claude' | null = null;
  const elements = streamJsonArray(file, {
    maxElementBytes: MAX_CONVERSATION_BYTES,
    onBytes: options.onBytes,
    signal: options.signal,
    chunkBytes: options.chunkBytes,
  });
  for await (const e of elements) {
    const position = `conversation ${e.index} (byte ${e.offset})`;
    if (!format) {
      format = exportFormatOf(file, requested, e.value, position);
      options.onFormat?.(format);
    }
    try {
      yield { ok: true, conversation: PARSERS[format](e.value, position) };
    } catch (err) {
      if (!(err instanceof ConversationRejected)) throw err;
      const v = e.value as Record<string, unknown> | null;
      const id = typeof v === 'object' && v ? (v.conversation_id ?? v.id ?? v.uuid) : null;
      yield { ok: false, position, conversationId: typeof id === 'string' ? id : null, reason: err.message };
    }
  }
}

async function* readJsonl(file: string, options: ReadOptions): AsyncGenerator<ImportItem> {
  options.onFormat?.('jsonl');
  const lines = streamLines(file, { maxLineBytes: MAX_LINE_BYTES, ...options });
  for await (const group of groupJsonl(file, lines)) {
    yield group.ok
      ? group
      : { ok: false, position: group.position, conversationId: group.conversationId, reason: group.reason };
  }
}

/** The conversations of one file, streamed, in file order. */
export async function* readConversations(
  file: string,
  format: ImportFormat,
  options: ReadOptions,
): AsyncGenerator<ImportItem> {
  yield* fileShape(file, format) === 'jsonl' ? readJsonl(file, options) : readJsonExport(file, format, options);
}
