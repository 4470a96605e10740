/** Vocabulary shared by the engine, every door and the renderer. */
export const SCOPES = ['user', 'project', 'workspace', 'folder', 'session'] as const;
export type Scope = (typeof SCOPES)[number];

/** Order tried when a requested scope is unavailable: project first, session last. */
export const FALLBACK_SCOPES = ['project', 'workspace', 'folder', 'session'] as const satisfies readonly Scope[];

export const FACT_KINDS = ['preference', 'profile', 'decision', 'convention', 'constraint', 'fact'] as const;
export type FactKind = (typeof FACT_KINDS)[number];

/** Only these kinds may be user-global; every other kind is technical and stays local. */
export const USER_SCOPE_KINDS: readonly FactKind[] = ['preference', 'profile'];

export const CONFIDENCES = ['low', 'medium', 'high'] as const;
export type Confidence = (typeof CONFIDENCES)[number];
export const CONFIDENCE_RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };

export const FACT_ORIGINS = ['manual', 'extraction', 'legacy_note'] as const;
export type FactOrigin = (typeof FACT_ORIGINS)[number];

export const SESSION_KINDS = ['top-level', 'team-member', 'side-chat'] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];

export const MESSAGE_ROLES = ['user', 'assistant', 'tool', 'system'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/**
 * Why a stored fact sits at another scope than the one asked for: a technical kind asked for at
 * user scope, work content (a codebase, tool or workflow) asked for at user scope, a scope the
 * session does not have, or a scope name that does not exist at all.
 */
export const COERCION_REASONS = [
  'technical-kind-not-user',
  'work-content-not-user',
  'scope-unavailable',
  'unknown-scope',
] as const;
export type CoercionReason = (typeof COERCION_REASONS)[number];

/** Where a fact is stored: the scope and key it was placed at, and why when that is not the one asked for. */
export interface CoercedScope {
  scope: Scope;
  key: string;
  /**
   * Set when the stored scope differs from the requested one. `requested` is a Scope, or for
   * reason unknown-scope the (sanitised) name that was asked for.
   */
  coercion: { requested: string; reason: CoercionReason } | null;
}

export const FACT_TEXT_MAX = 500;

/** How automatic recall treats a fact: normally, always as a candidate (pinned), or never (paused). */
export const FACT_RECALL_MODES = ['normal', 'pinned', 'paused'] as const;
export type FactRecallMode = (typeof FACT_RECALL_MODES)[number];
