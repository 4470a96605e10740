import { ConversationRejected, cleanTitle, reject, secondsToMs, stableKey } from './convert';
import { isObject, textOf, type ParsedConversation, type ParsedMessage } from './types';

/**
 * A ChatGPT data export's conversations.json holds an array of conversations, each with `title`,
 * `create_time` (epoch seconds, a float), `current_node` and a `mapping` of nodes
 * `{id, message, parent, children}`. Editing a prompt or regenerating an answer leaves branches in
 * the tree; the conversation as the person last saw it is the path from `current_node` up to the
 * root, reversed. Only what the person and the model said is kept: system messages (custom
 * instructions among them), tool messages, assistant calls to a tool (a recipient other than
 * "all"), messages hidden from the conversation, and non-text content (code runs, browsing
 * results, reasoning, images) are skipped.
 */
type Node = { id?: unknown; message?: unknown; parent?: unknown; children?: unknown };

const KEPT_CONTENT = new Set(['text', 'multimodal_text']);

const nodeOf = (mapping: Record<string, unknown>, id: string): Node | null => {
  const node = mapping[id];
  return isObject(node) ? node : null;
};

/** Without a usable current_node: the leaf whose message is newest (the last such one on a tie). */
function newestLeaf(mapping: Record<string, unknown>): string | null {
  let best: { id: string; at: number } | null = null;
  for (const [id, node] of Object.entries(mapping)) {
    if (!isObject(node) || (Array.isArray(node.children) && node.children.length > 0)) continue;
    const at = isObject(node.message) ? (secondsToMs(node.message.create_time) ?? 0) : 0;
    if (!best || at >= best.at) best = { id, at };
  }
  return best?.id ?? null;
}

/** The node ids of the current branch, root first. */
function currentBranch(mapping: Record<string, unknown>, currentNode: unknown): Node[] {
  const start = typeof currentNode === 'string' && nodeOf(mapping, currentNode) ? currentNode : newestLeaf(mapping);
  const path: Node[] = [];
  const seen = new Set<string>();
  for (let id: string | null = start; id !== null;) {
    if (seen.has(id)) reject(`its message tree loops back to node ${id}`);
    seen.add(id);
    const node = nodeOf(mapping, id);
    if (!node) break;
    path.push(node);
    id = typeof node.parent === 'string' ? node.parent : null;
  }
  return path.reverse();
}

function textParts(content: unknown): string {
  if (!isObject(content) || !KEPT_CONTENT.has(String(content.content_type))) return '';
  if (!Array.isArray(content.parts)) return '';
  // Multimodal parts mix strings with image pointers: the strings are the text.
  return content.parts
    .filter((p): p is string => typeof p === 'string')
    .join('\n')
    .trim();
}

/** The message as imported, or null when it is not something a person or the model said. */
function keptMessage(node: Node): ParsedMessage | null {
  const m = node.message;
  if (!isObject(m)) return null;
  const role = isObject(m.author) ? m.author.role : undefined;
  if (role !== 'user' && role !== 'assistant') return null;
  const meta = isObject(m.metadata) ? m.metadata : {};
  if (meta.is_visually_hidden_from_conversation === true || meta.is_user_system_message === true) return null;
  if (role === 'assistant' && typeof m.recipient === 'string' && m.recipient !== 'all') return null;
  const content = textParts(m.content);
  if (!content) return null;
  return {
    key: textOf(m.id) || textOf(node.id) || stableKey([role, m.create_time, content]),
    role,
    content,
    createdAt: secondsToMs(m.create_time),
  };
}

export function isChatGptConversation(raw: unknown): boolean {
  return isObject(raw) && isObject(raw.mapping);
}

export function parseChatGptConversation(raw: unknown, position: string): ParsedConversation {
  if (!isObject(raw)) reject('is not an object');
  const conversation = raw as Record<string, unknown>;
  if (!isObject(conversation.mapping)) {
    throw new ConversationRejected('has no "mapping" of messages, so it is not a ChatGPT conversation');
  }
  const messages: ParsedMessage[] = [];
  let skipped = 0;
  for (const node of currentBranch(conversation.mapping, conversation.current_node)) {
    const kept = keptMessage(node);
    if (kept) messages.push(kept);
    else if (isObject(node.message)) skipped++;
  }
  const createdAt = secondsToMs(conversation.create_time);
  return {
    source: 'chatgpt',
    originalId:
      textOf(conversation.conversation_id) ||
      textOf(conversation.id) ||
      stableKey([conversation.title, conversation.create_time]),
    title: cleanTitle(conversation.title),
    createdAt,
    messages,
    skippedMessages: skipped,
    context: null,
    position,
  };
}
