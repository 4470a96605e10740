import { createHash } from 'node:crypto';
import type { Db } from '../../store/db';
import { getSession, insertSession } from '../../store/sessions';
import {
  appendImportedMessages,
  findImportedConversation,
  finishImportedConversation,
  importedMessageKeys,
  insertImportedConversation,
  type ImportedMessageInsert,
} from '../../store/imports';
import type { ImportContext, ParsedConversation, ParsedMessage } from './types';

/** messages.add takes at most this many characters; a longer imported message is cut to it. */
export const MAX_MESSAGE_CHARS = 1_000_000;
const TRUNCATED = '\n[cut at 1,000,000 characters by the import]';
/** One write transaction holds at most this many messages or characters, so no live turn waits long. */
export const MESSAGES_PER_TX = 64;
export const CHARS_PER_TX = 512_000;

export interface WriterDeps {
  db: Db;
  now(): number;
  newId(): string;
  /** Runs one write transaction (timed by the caller). */
  tx<T>(fn: () => T): T;
  /** Between two transactions of one conversation: lets live turns take the writer. */
  pause(): Promise<void>;
}

export type WriteOutcome = {
  /** unchanged: nothing new (then sessionId is the existing session). */
  state: 'created' | 'updated' | 'unchanged';
  sessionId: string;
  added: number;
  alreadyImported: number;
  timesAdjusted: number;
  truncated: number;
};

const AGENT: Record<ParsedConversation['source'], string | null> = {
  chatgpt: 'chatgpt',
  claude: 'claude',
  jsonl: null,
};

const contentHash = (messages: ParsedMessage[]) =>
  createHash('sha256')
    .update(messages.map((m) => m.key).join('\n'))
    .digest('hex');

/**
 * Times as messages.add needs them: never in the future, never before the message before. A
 * message without a time takes the previous message's (the conversation's for the first); one
 * older than the message before it takes that message's time.
 */
export function timeMessages(
  messages: ParsedMessage[],
  conversationTime: number | null,
  now: number,
): { times: number[]; adjusted: number } {
  let previous = -Infinity;
  let adjusted = 0;
  const fallback = Math.min(conversationTime ?? messages.find((m) => m.createdAt !== null)?.createdAt ?? now, now);
  const times = messages.map((m) => {
    let at = m.createdAt ?? (previous > -Infinity ? previous : fallback);
    if (at > now || at < previous) {
      at = Math.min(Math.max(at, previous), now);
      adjusted++;
    }
    previous = at;
    return at;
  });
  return { times, adjusted };
}

function titleOf(c: ParsedConversation): string | null {
  if (c.title) return c.title;
  const first = c.messages
    .find((m) => m.role === 'user')
    ?.content.split('\n')[0]
    ?.trim();
  if (!first) return null;
  return first.length > 80 ? `${first.slice(0, 79)}…` : first;
}

/** A JSONL line's own context wins over the one chosen for the import (both already normalized). */
function contextOf(c: ParsedConversation, chosen: ImportContext): ImportContext {
  const own = c.context && Object.values(c.context).some(Boolean) ? c.context : null;
  if (!own) return chosen;
  return { projectId: own.projectId ?? null, workspace: own.workspace ?? null, folderId: own.folderId ?? null };
}

/** Chunks of at most MESSAGES_PER_TX messages and CHARS_PER_TX characters (one message at least). */
function chunks(messages: ImportedMessageInsert[]): ImportedMessageInsert[][] {
  const out: ImportedMessageInsert[][] = [];
  let current: ImportedMessageInsert[] = [];
  let chars = 0;
  for (const m of messages) {
    if (current.length > 0 && (current.length >= MESSAGES_PER_TX || chars + m.content.length > CHARS_PER_TX)) {
      out.push(current);
      current = [];
      chars = 0;
    }
    current.push(m);
    chars += m.content.length;
  }
  if (current.length || out.length === 0) out.push(current);
  return out;
}

/** Creates the session (once) and its provenance; another process may have done it meanwhile. */
function ensureSession(
  deps: WriterDeps,
  c: ParsedConversation,
  chosen: ImportContext,
  createdAt: number,
): { id: string; created: boolean } {
  const existing = findImportedConversation(deps.db, c.source, c.originalId);
  if (existing) return { id: existing.sessionId, created: false };
  const id = deps.newId();
  const now = deps.now();
  insertSession(deps.db, {
    id,
    kind: 'top-level',
    parentSessionId: null,
    ...contextOf(c, chosen),
    agentName: AGENT[c.source],
    title: titleOf(c),
    createdAt,
    updatedAt: createdAt,
  });
  insertImportedConversation(deps.db, { sessionId: id, source: c.source, originalId: c.originalId, now });
  return { id, created: true };
}

/** What one conversation will write: the messages it does not have yet, timed. */
export interface ConversationPlan {
  conversation: ParsedConversation;
  /** Known from an earlier import (its session id), or null for a new one. */
  sessionId: string | null;
  hash: string;
  fresh: ImportedMessageInsert[];
  sessionCreatedAt: number;
  timesAdjusted: number;
  truncated: number;
}

/** The plan, or null when the conversation is exactly as it was imported before. */
export function planConversation(deps: WriterDeps, c: ParsedConversation): ConversationPlan | null {
  const hash = contentHash(c.messages);
  const known = findImportedConversation(deps.db, c.source, c.originalId);
  if (known && known.contentHash === hash && getSession(deps.db, known.sessionId)) return null;
  const now = deps.now();
  const { times, adjusted } = timeMessages(c.messages, c.createdAt, now);
  const keys = known ? importedMessageKeys(deps.db, known.sessionId) : new Set<string>();
  let truncated = 0;
  const fresh: ImportedMessageInsert[] = [];
  c.messages.forEach((m, i) => {
    if (keys.has(m.key)) return;
    let content = m.content;
    if (content.length > MAX_MESSAGE_CHARS) {
      content = content.slice(0, MAX_MESSAGE_CHARS - TRUNCATED.length) + TRUNCATED;
      truncated++;
    }
    fresh.push({ id: deps.newId(), key: m.key, role: m.role, content, createdAt: times[i]! });
  });
  return {
    conversation: c,
    sessionId: known?.sessionId ?? null,
    hash,
    fresh,
    sessionCreatedAt: Math.min(c.createdAt ?? times[0]!, times[0]!, now),
    timesAdjusted: adjusted,
    truncated,
  };
}

const outcomeOf = (plan: ConversationPlan, sessionId: string, added: number, created: boolean): WriteOutcome => ({
  state: created ? 'created' : added > 0 ? 'updated' : 'unchanged',
  sessionId,
  added,
  alreadyImported: plan.conversation.messages.length - added,
  timesAdjusted: plan.timesAdjusted,
  truncated: plan.truncated,
});

/**
 * Writes conversations in short transactions. Small conversations are gathered until they hold
 * MESSAGES_PER_TX messages or CHARS_PER_TX characters and committed together (each whole, never
 * split); a larger one is committed alone in chunks, with a pause between them, its provenance's
 * content hash written with the last chunk, so a crash in between leaves a conversation that the
 * next import completes (its messages are keyed, so none is added twice).
 */
export class ConversationWriter {
  private pending: ConversationPlan[] = [];
  private pendingMessages = 0;
  private pendingChars = 0;

  constructor(
    private readonly deps: WriterDeps,
    private readonly chosen: ImportContext,
    private readonly committed: (plan: ConversationPlan, outcome: WriteOutcome) => void,
  ) {}

  async add(plan: ConversationPlan): Promise<void> {
    const chars = plan.fresh.reduce((n, m) => n + m.content.length, 0);
    const fits = (n: number, c: number) => n <= MESSAGES_PER_TX && c <= CHARS_PER_TX;
    if (!fits(plan.fresh.length, chars)) {
      this.flush();
      return this.writeAlone(plan);
    }
    if (!fits(this.pendingMessages + plan.fresh.length, this.pendingChars + chars)) this.flush();
    this.pending.push(plan);
    this.pendingMessages += plan.fresh.length;
    this.pendingChars += chars;
  }

  /** Commits what is gathered, in one transaction. */
  flush(): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.pendingMessages = 0;
    this.pendingChars = 0;
    const written = this.deps.tx(() => {
      const sessions = batch.map((p) =>
        p.sessionId
          ? { id: p.sessionId, created: false }
          : ensureSession(this.deps, p.conversation, this.chosen, p.sessionCreatedAt),
      );
      const counts = appendImportedMessages(
        this.deps.db,
        batch.map((p, i) => ({ sessionId: sessions[i]!.id, messages: p.fresh })),
      );
      const now = this.deps.now();
      batch.forEach((p, i) =>
        finishImportedConversation(this.deps.db, { sessionId: sessions[i]!.id, contentHash: p.hash, now }),
      );
      return sessions.map((session, i) => ({ ...session, added: counts[i]! }));
    });
    batch.forEach((p, i) => this.committed(p, outcomeOf(p, written[i]!.id, written[i]!.added, written[i]!.created)));
  }

  private async writeAlone(plan: ConversationPlan): Promise<void> {
    const parts = chunks(plan.fresh);
    let sessionId = plan.sessionId ?? '';
    let created = false;
    let added = 0;
    for (let i = 0; i < parts.length; i++) {
      const last = i === parts.length - 1;
      added += this.deps.tx(() => {
        if (!sessionId) {
          const session = ensureSession(this.deps, plan.conversation, this.chosen, plan.sessionCreatedAt);
          sessionId = session.id;
          created = session.created;
        }
        const [n] = appendImportedMessages(this.deps.db, [{ sessionId, messages: parts[i]! }]);
        if (last) finishImportedConversation(this.deps.db, { sessionId, contentHash: plan.hash, now: this.deps.now() });
        return n!;
      });
      if (!last) await this.deps.pause();
    }
    this.committed(plan, outcomeOf(plan, sessionId, added, created));
  }
}
