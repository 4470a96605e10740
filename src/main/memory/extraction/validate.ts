import {
  CONFIDENCES,
  FACT_KINDS,
  FACT_TEXT_MAX,
  SCOPES,
  type Confidence,
  type FactKind,
  type Scope,
} from '../../../shared/domain';
import { coerceScope, type SessionScopes } from '../scope';
import type { CoercedScope } from '../../../shared/domain';
import { findSecret } from '../secrets';
import { foldForKey, normalizeFactText } from '../../text/fact-text';
import { hangsOnPronoun } from './content';
import type { Candidate } from './types';

export const FACT_TEXT_MIN = 3;

export type RejectionReason =
  'empty' | 'too-short' | 'too-long' | 'invalid-kind' | 'duplicate' | 'pronoun' | 'assistant-line' | `secret:${string}`;

export interface AcceptedCandidate {
  text: string;
  kind: FactKind;
  confidence: Confidence;
  target: CoercedScope;
  messageId: string | null;
}

export interface Validation {
  accepted: AcceptedCandidate[];
  rejected: { reason: RejectionReason; index: number }[];
}

const isKind = (k: string): k is FactKind => (FACT_KINDS as readonly string[]).includes(k);
const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
const isConfidence = (c: string): c is Confidence => (CONFIDENCES as readonly string[]).includes(c);

export interface ValidateOptions {
  /** Legacy bullets carried no scope: they may never become user-global, whatever they say. */
  neverUser?: boolean;
  /**
   * The role of the message a candidate names, for candidates read from a conversation: what
   * the assistant said is never the user's preference or profile, and a text whose meaning
   * hangs on a pronoun ("User likes them.") cannot be read out of context.
   */
  roleOf?: (messageId: string | null) => 'user' | 'assistant' | 'summary' | undefined;
}

const lower = (v: unknown, fallback: string) =>
  String(v ?? fallback)
    .trim()
    .toLowerCase();

/** The unknown scope name as stored with the fact: a short plain word, else just "unknown". */
const unknownScopeName = (name: string) =>
  /^[a-z][a-z0-9_-]{0,31}$/.test(name) && !findSecret(name) ? name : 'unknown';

/**
 * Where a candidate is stored. No scope: the session, the narrowest place, so an unplaced fact reaches no one else. A name that is no
 * scope at all goes there too, recorded as a coercion like any other, with the name it asked for.
 */
function targetScope(
  raw: unknown,
  scopes: SessionScopes,
  kind: FactKind,
  text: string,
  options: ValidateOptions,
): CoercedScope {
  const scopeText = lower(raw, '');
  let requested: Scope = isScope(scopeText) ? scopeText : 'session';
  if (options.neverUser && requested === 'user') requested = 'project';
  const target = coerceScope(scopes, requested, kind, text);
  if (!scopeText || isScope(scopeText)) return target;
  return { ...target, coercion: { requested: unknownScopeName(scopeText), reason: 'unknown-scope' } };
}

/** Why a candidate's text and kind cannot be stored, or null when they can. */
function textProblem(text: string, kind: string, c: Candidate, options: ValidateOptions): RejectionReason | null {
  if (!text) return 'empty';
  if (text.length < FACT_TEXT_MIN) return 'too-short';
  if (text.length > FACT_TEXT_MAX) return 'too-long';
  if (!isKind(kind)) return 'invalid-kind';
  const secret = findSecret(text);
  if (secret) return `secret:${secret.kind}`;
  if (!options.roleOf) return null;
  if (hangsOnPronoun(text)) return 'pronoun';
  const personal = kind === 'preference' || kind === 'profile';
  return personal && options.roleOf(c.messageId) === 'assistant' ? 'assistant-line' : null;
}

/**
 * Every candidate, from any extractor or the legacy import, passes here before it is stored:
 * length bounds, a known kind, no secrets, nothing that hangs on a pronoun, no preference or
 * profile taken from an assistant line, the scope coerced per the scope contract (user scope
 * only for the person, never for work content), and one copy per (scope, key) in the batch. A
 * rejection records only its reason.
 */
export function validateCandidates(
  candidates: Candidate[],
  scopes: SessionScopes,
  options: ValidateOptions = {},
): Validation {
  const accepted: AcceptedCandidate[] = [];
  const rejected: Validation['rejected'] = [];
  const seen = new Set<string>();
  candidates.forEach((c, index) => {
    const text = normalizeFactText(String(c.text ?? ''));
    const kindText = lower(c.kind, 'fact');
    const problem = textProblem(text, kindText, c, options);
    if (problem || !isKind(kindText)) return void rejected.push({ reason: problem ?? 'invalid-kind', index });
    const target = targetScope(c.scope, scopes, kindText, text, options);
    const key = `${target.scope}\u0000${target.key}\u0000${foldForKey(text)}`;
    if (seen.has(key)) return void rejected.push({ reason: 'duplicate', index });
    seen.add(key);
    const confText = lower(c.confidence, 'medium');
    accepted.push({
      text,
      kind: kindText,
      confidence: isConfidence(confText) ? confText : 'medium',
      target,
      messageId: c.messageId,
    });
  });
  return { accepted, rejected };
}
