import { cleanTitle, reject, stableKey, timeToMs } from './convert';
import { isObject, textOf, type ParsedConversation, type ParsedMessage } from './types';

/**
 * A Claude data export's conversations.json holds an array of conversations, each with `uuid`,
 * `name`, `created_at` (ISO-8601) and `chat_messages`: `{uuid, sender: human|assistant, text,
 * content: [{type, text}], created_at}`. The text is taken from the `text` content blocks when
 * there are any (tool use, tool results and thinking are left out), else from `text`. Where a
 * conversation names its `current_leaf_message_uuid` and messages name their
 * `parent_message_uuid`, only the branch that ends at that leaf is kept, as for ChatGPT.
 */
type Message = Record<string, unknown>;

const ROLES: Record<string, 'user' | 'assistant'> = { human: 'user', user: 'user', assistant: 'assistant' };

function messageText(m: Message): string {
  if (Array.isArray(m.content)) {
    const blocks = m.content
      .filter((b) => isObject(b) && b.type === 'text')
      .map((b) => textOf((b as Message).text))
      .filter(Boolean);
    if (blocks.length) return blocks.join('\n\n');
  }
  return textOf(m.text);
}

/** The branch ending at the current leaf, when the export records branches; else every message in order. */
function currentBranch(conversation: Record<string, unknown>, messages: Message[]): Message[] {
  const leaf = conversation.current_leaf_message_uuid;
  if (typeof leaf !== 'string' || !messages.some((m) => typeof m.parent_message_uuid === 'string')) return messages;
  const byId = new Map(messages.map((m) => [textOf(m.uuid), m]));
  if (!byId.has(leaf)) return messages;
  const path: Message[] = [];
  const seen = new Set<string>();
  for (let id: string | undefined = leaf; id && byId.has(id);) {
    if (seen.has(id)) reject(`its messages loop back to message ${id}`);
    seen.add(id);
    const m: Message = byId.get(id)!;
    path.push(m);
    id = typeof m.parent_message_uuid === 'string' ? m.parent_message_uuid : undefined;
  }
  return path.reverse();
}

export function isClaudeConversation(raw: unknown): boolean {
  return isObject(raw) && Array.isArray(raw.chat_messages);
}

export function parseClaudeConversation(raw: unknown, position: string): ParsedConversation {
  if (!isObject(raw)) reject('is not an object');
  const conversation = raw as Record<string, unknown>;
  if (!Array.isArray(conversation.chat_messages)) {
    reject('has no "chat_messages" list, so it is not a Claude conversation');
  }
  const all = (conversation.chat_messages as unknown[]).filter(isObject);
  let skipped = (conversation.chat_messages as unknown[]).length - all.length;
  const messages: ParsedMessage[] = [];
  for (const m of currentBranch(conversation, all)) {
    const role = ROLES[String(m.sender)];
    const content = role ? messageText(m) : '';
    if (!role || !content) {
      skipped++;
      continue;
    }
    messages.push({
      key: textOf(m.uuid) || stableKey([role, m.created_at, content]),
      role,
      content,
      createdAt: timeToMs(m.created_at),
    });
  }
  return {
    source: 'claude',
    originalId: textOf(conversation.uuid) || stableKey([conversation.name, conversation.created_at]),
    title: cleanTitle(conversation.name),
    createdAt: timeToMs(conversation.created_at),
    messages,
    skippedMessages: skipped,
    context: null,
    position,
  };
}
