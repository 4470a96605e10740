import type { Confidence, FactKind, FactOrigin } from '../../shared/domain';

/**
 * The integers memory_fact_rows stores for a fact's kind, confidence and origin (migration 104).
 * The memory_facts view decodes them with CASEs spelled out in that migration, so these lists
 * are fixed: append a new value at the end (and decode it in a new migration), never reorder.
 */
const KIND_CODES: readonly FactKind[] = ['preference', 'profile', 'decision', 'convention', 'constraint', 'fact'];
const ORIGIN_CODES: readonly FactOrigin[] = ['manual', 'extraction', 'legacy_note'];
/** Stored as its rank, which is also what the confidence sort orders by. */
const CONFIDENCE_CODES: readonly Confidence[] = ['low', 'medium', 'high'];

const codeOf = <T>(list: readonly T[], value: T, what: string): number => {
  const code = list.indexOf(value);
  if (code < 0) throw new Error(`no stored code for ${what} ${String(value)}`);
  return code;
};

export const kindCode = (kind: FactKind): number => codeOf(KIND_CODES, kind, 'kind');
export const originCode = (origin: FactOrigin): number => codeOf(ORIGIN_CODES, origin, 'origin');
export const confidenceCode = (confidence: Confidence): number => codeOf(CONFIDENCE_CODES, confidence, 'confidence');

/** Every value with its code, for the test that the view decodes each one back. */
export const STORED_CODES = { kind: KIND_CODES, origin: ORIGIN_CODES, confidence: CONFIDENCE_CODES } as const;

/** A stored code back to its value, as the memory_facts view decodes it (unknown codes as its ELSE). */
export const kindOf = (code: number): FactKind => KIND_CODES[code] ?? 'fact';
export const confidenceOf = (code: number): Confidence => CONFIDENCE_CODES[code] ?? 'low';
