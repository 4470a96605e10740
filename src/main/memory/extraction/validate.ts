import {
  CONFIDENCES,
  FACT_KINDS,
  FACT_TEXT_MAX,
  SCOPES,
  type Confidence,
  type FactKind,
  type Scope,
} from '../../../shared/domain';
import { coerceScope, type CoercedScope, type SessionScopes } from '../scope';
import { findSecret } from '../secrets';
import { foldForKey, normalizeFactText } from '../text';
import type { Candidate } from './types';

export const FACT_TEXT_MIN = 3;

export type RejectionReason = 'empty' | 'too-short' | 'too-long' | 'invalid-kind' | 'duplicate' | `secret:${string}`;

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

/** The unknown scope name as stored with the fact: a short plain word, else just "unknown". */
const unknownScopeName = (name: string) =>
  /^[a-z][a-z0-9_-]{0,31}$/.test(name) && !findSecret(name) ? name : 'unknown';

export interface ValidateOptions {
  /** Legacy bullets carried no scope: they may never become user-global, whatever they say. */
  neverUser?: boolean;
}

/**
 * Where a candidate is stored. No scope: the session, as in the reference. A name that is no
 * scope at all goes there too, recorded as a coercion like any other, with the name it asked for.
 */
function targetScope(raw: unknown, scopes: SessionScopes, kind: FactKind, options: ValidateOptions): CoercedScope {
  const scopeText = String(raw ?? '')
    .trim()
    .toLowerCase();
  let requested: Scope = isScope(scopeText) ? scopeText : 'session';
  if (options.neverUser && requested === 'user') requested = 'project';
  const target = coerceScope(scopes, requested, kind);
  if (!scopeText || isScope(scopeText)) return target;
  return { ...target, coercion: { requested: unknownScopeName(scopeText), reason: 'unknown-scope' } };
}

/**
 * Every candidate, from any extractor or the legacy import, passes here before it is stored:
 * length bounds, a known kind, no secrets, the scope coerced per the scope contract, and one
 * copy per (scope, key) in the batch. A rejection records only its reason.
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
    if (!text) return void rejected.push({ reason: 'empty', index });
    if (text.length < FACT_TEXT_MIN) return void rejected.push({ reason: 'too-short', index });
    if (text.length > FACT_TEXT_MAX) return void rejected.push({ reason: 'too-long', index });
    const kindText = String(c.kind ?? 'fact')
      .trim()
      .toLowerCase();
    if (!isKind(kindText)) return void rejected.push({ reason: 'invalid-kind', index });
    const secret = findSecret(text);
    if (secret) return void rejected.push({ reason: `secret:${secret.kind}`, index });
    const target = targetScope(c.scope, scopes, kindText, options);
    const key = `${target.scope}\u0000${target.key}\u0000${foldForKey(text)}`;
    if (seen.has(key)) return void rejected.push({ reason: 'duplicate', index });
    seen.add(key);
    const confText = String(c.confidence ?? 'medium')
      .trim()
      .toLowerCase();
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
