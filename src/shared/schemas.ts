import { z } from 'zod';
import {
  COERCION_REASONS,
  CONFIDENCES,
  FACT_KINDS,
  FACT_ORIGINS,
  FACT_RECALL_MODES,
  MESSAGE_ROLES,
  SCOPES,
  SESSION_KINDS,
} from './domain';

/** Records every door returns. Times are epoch milliseconds. */
export const id = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
export const scope = z.enum(SCOPES);
export const factKind = z.enum(FACT_KINDS);
export const confidence = z.enum(CONFIDENCES);
export const recallMode = z.enum(FACT_RECALL_MODES);
export const sessionKind = z.enum(SESSION_KINDS);
export const messageRole = z.enum(MESSAGE_ROLES);
export const epochMs = z.number().int();

/**
 * A time given by a caller (history imports): epoch milliseconds or an ISO-8601 date-time with
 * its offset. Handlers refuse one in the future against their clock.
 */
export const pastTime = z.union([
  z.number().int().min(0),
  z.iso.datetime({ offset: true }).transform((iso) => Date.parse(iso)),
]);

export const sessionRecord = z.object({
  id: z.string(),
  kind: sessionKind,
  parentSessionId: z.string().nullable(),
  projectId: z.string().nullable(),
  workspace: z.string().nullable(),
  folderId: z.string().nullable(),
  agentName: z.string().nullable(),
  title: z.string().nullable(),
  createdAt: epochMs,
  updatedAt: epochMs,
});
export type SessionRecord = z.infer<typeof sessionRecord>;

export const messageRecord = z.object({
  id: z.string(),
  sessionId: z.string(),
  seq: z.number().int(),
  role: messageRole,
  content: z.string(),
  hidden: z.boolean(),
  sideChatContext: z.boolean(),
  toolCallRound: z.boolean(),
  systemGenerated: z.boolean(),
  isSummary: z.boolean(),
  compacted: z.boolean(),
  createdAt: epochMs,
  /** Present on a user message whose turn ran without memory because recall failed: the reason. */
  recallDegraded: z.string().optional(),
});
export type MessageRecord = z.infer<typeof messageRecord>;

export const scopeRef = z.object({ scope, key: z.string() });
export type ScopeRef = z.infer<typeof scopeRef>;

export const factRecord = z.object({
  id: z.string(),
  scope,
  scopeKey: z.string(),
  kind: factKind,
  text: z.string(),
  confidence,
  reinforcement: z.number().int(),
  origin: z.enum(FACT_ORIGINS),
  /** The scope asked for when the store chose another; an unknown name is kept as asked (e.g. "galaxy"). */
  requestedScope: z.string().nullable(),
  coercionReason: z.enum(COERCION_REASONS).nullable(),
  /** normal, pinned (always a recall candidate for its scope) or paused (kept, never recalled). */
  recall: z.enum(FACT_RECALL_MODES),
  firstSeenAt: epochMs,
  lastSeenAt: epochMs,
  updatedAt: epochMs,
});
export type FactRecord = z.infer<typeof factRecord>;

export const evidenceRecord = z.object({
  factId: z.string(),
  sessionId: z.string(),
  sessionTitle: z.string().nullable(),
  messageId: z.string().nullable(),
  messageSeq: z.number().int().nullable(),
  messageExcerpt: z.string().nullable(),
  createdAt: epochMs,
  lastSeenAt: epochMs,
});
export type EvidenceRecord = z.infer<typeof evidenceRecord>;

/** One thing wrong in settings.yaml; the key fell back to its default (or was ignored). */
export const settingsProblem = z.object({ file: z.string(), key: z.string(), reason: z.string() });
export type SettingsProblemRecord = z.infer<typeof settingsProblem>;
/**
 * What a forget does to the wiki (in a dry run: what it would do). `pages`: the machine-written
 * pages that change (a forgotten session's source page and emptied Dream group pages deleted,
 * Dream bullets of deleted facts removed, citations of the forgotten session dropped). `mentions`:
 * lines that still mention a forgotten session or fact afterwards (text a person wrote, never
 * rewritten), with their page and line. `pending`: the clean-up is queued and finishes later.
 */
export const forgetWikiReport = z.object({
  pages: z.array(z.object({ path: z.string(), change: z.enum(['delete', 'edit']) })),
  mentions: z.array(z.object({ path: z.string(), line: z.number().int(), text: z.string() })),
  pending: z.boolean(),
});
export type ForgetWikiReport = z.infer<typeof forgetWikiReport>;

/** A path on this machine as a person gives it (a workspace, an export file, a folder): trimmed, 1 to 4096 characters. */
export const localPath = () => z.string().trim().min(1).max(4096);
