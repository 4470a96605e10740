import { cleanTitle, stableKey, timeToMs } from './convert';
import { normalizeWorkspacePath } from '../workspace-path';
import type { Line } from './line-stream';
import { ImportInputError, isObject, textOf, type ImportContext, type ParsedConversation } from './types';

/**
 * A JSONL transcript: one message per line,
 *
 *   {"conversation": "c1", "title": "Trip", "role": "user", "content": "…", "createdAt": "2024-05-01T09:00:00Z",
 *    "project": "my-app", "workspace": "/home/me/src/app", "folder": "research", "id": "m1"}
 *
 * `conversation`, `role` (user, assistant, system, tool), `content` and `createdAt` (ISO-8601 or
 * epoch milliseconds) are required; `title`, the context fields and `id` are optional. Lines of
 * one conversation follow each other; the first line's title and context are the conversation's.
 * System and tool lines are skipped like those of the exports. A message without `id` is keyed by
 * a hash of its role, time and text (the n-th repeat of the same message at the same time gets
 * its own key).
 */
export interface JsonlMessageLine {
  conversation: string;
  title: string | null;
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
  createdAt: number;
  context: Partial<ImportContext>;
  id: string | null;
}

const ROLES = new Set(['user', 'assistant', 'system', 'tool']);

/** One line as a message, or the reason it is not one. */
export function parseJsonlLine(text: string): JsonlMessageLine | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return `is not JSON (${(e as Error).message})`;
  }
  if (!isObject(raw)) return 'is not a JSON object';
  const conversation =
    typeof raw.conversation === 'number' ? String(raw.conversation) : textOf(raw.conversation).slice(0, 200);
  if (!conversation) return 'has no "conversation" (the id of the conversation it belongs to)';
  if (typeof raw.role !== 'string' || !ROLES.has(raw.role)) return '"role" must be user, assistant, system or tool';
  if (typeof raw.content !== 'string') return '"content" must be a string';
  const createdAt = timeToMs(raw.createdAt);
  if (createdAt === null) return '"createdAt" must be an ISO-8601 time or epoch milliseconds';
  const context: Partial<ImportContext> = {};
  if (textOf(raw.project)) context.projectId = textOf(raw.project).slice(0, 200);
  if (textOf(raw.workspace)) {
    try {
      context.workspace = normalizeWorkspacePath(textOf(raw.workspace).slice(0, 4096));
    } catch (e) {
      return `"workspace" ${(e as Error).message.replace(/^workspace: /, '')}`;
    }
  }
  if (textOf(raw.folder)) context.folderId = textOf(raw.folder).slice(0, 200);
  return {
    conversation,
    title: cleanTitle(raw.title),
    role: raw.role as JsonlMessageLine['role'],
    content: raw.content.trim(),
    createdAt,
    context,
    id: textOf(raw.id) || null,
  };
}

/** A run of lines of one conversation, or the first bad line in it. */
export type JsonlGroup =
  | { ok: true; conversation: ParsedConversation }
  | { ok: false; conversationId: string | null; position: string; reason: string };

interface Group {
  id: string;
  first: JsonlMessageLine;
  firstLine: number;
  lastLine: number;
  lines: JsonlMessageLine[];
  bad: { line: number; reason: string } | null;
}

function toConversation(g: Group): JsonlGroup {
  const position = g.firstLine === g.lastLine ? `line ${g.firstLine}` : `lines ${g.firstLine}-${g.lastLine}`;
  if (g.bad) return { ok: false, conversationId: g.id, position: `line ${g.bad.line}`, reason: g.bad.reason };
  const seen = new Map<string, number>();
  let skipped = 0;
  const messages: ParsedConversation['messages'] = [];
  for (const l of g.lines) {
    if ((l.role !== 'user' && l.role !== 'assistant') || !l.content) {
      skipped++;
      continue;
    }
    let key = l.id ?? stableKey([l.role, l.createdAt, l.content]);
    const repeat = seen.get(key) ?? 0;
    seen.set(key, repeat + 1);
    if (repeat > 0) key = `${key}#${repeat}`;
    messages.push({ key, role: l.role, content: l.content, createdAt: l.createdAt });
  }
  const conversation: ParsedConversation = {
    source: 'jsonl',
    originalId: g.id,
    title: g.first.title,
    createdAt: g.first.createdAt,
    messages,
    skippedMessages: skipped,
    context: g.first.context,
    position,
  };
  return { ok: true, conversation };
}

/**
 * Groups consecutive lines by conversation. A line that is not a message spoils the conversation
 * it sits in (nothing of it is imported); when the very first line is not JSON at all, the file is
 * not JSONL and nothing is imported.
 */
export async function* groupJsonl(file: string, lines: AsyncIterable<Line>): AsyncGenerator<JsonlGroup> {
  let current: Group | null = null;
  let parsedAny = false;
  for await (const line of lines) {
    const parsed = parseJsonlLine(line.text);
    if (typeof parsed === 'string') {
      if (!parsedAny && !current && parsed.startsWith('is not JSON')) {
        throw new ImportInputError(file, `line ${line.number} (byte ${line.offset})`, `${parsed}; not a JSONL file`);
      }
      if (current) {
        current.bad ??= { line: line.number, reason: parsed };
        current.lastLine = line.number;
      } else {
        yield { ok: false, conversationId: null, position: `line ${line.number}`, reason: parsed };
      }
      continue;
    }
    parsedAny = true;
    if (current && current.id !== parsed.conversation) {
      yield toConversation(current);
      current = null;
    }
    current ??= {
      id: parsed.conversation,
      first: parsed,
      firstLine: line.number,
      lastLine: line.number,
      lines: [],
      bad: null,
    };
    current.lines.push(parsed);
    current.lastLine = line.number;
  }
  if (current) yield toConversation(current);
}
