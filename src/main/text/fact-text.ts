import { hash } from 'node:crypto';
import { normalizedText } from '../../shared/whitespace';

/**
 * A run of separators (not letters or digits) that is not already a single space: as with
 * collapseSpace (shared/whitespace.ts), replacing only these gives what replacing every run
 * gives, for less.
 */
const UNCOLLAPSED_SEPARATOR = /[^\p{L}\p{N}]{2,}|[^\p{L}\p{N} ]/gu;

/** NFC with whitespace runs collapsed: the stored form of a fact's text (as the contract reads it). */
export const normalizeFactText = normalizedText;

/**
 * The dedup form of a text: case-folded, punctuation folded to spaces, whitespace collapsed.
 * "Use  pnpm." and "use pnpm" are the same fact; "use pnpm 9" is not.
 */
export function foldForKey(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/ß/gu, 'ss').replace(UNCOLLAPSED_SEPARATOR, ' ').trim();
}

/**
 * The lookup key of a fact within its scope, from its folded text (foldForKey): the first 31
 * bits of sha256, as an integer (four bytes in a SQLite record). An integer key keeps the lookup
 * index small (it is hit at random on every upsert); it is not unique, so the store confirms a
 * hit by comparing folded texts and a collision can never merge two facts. Stores before
 * migration 104 kept 52 bits; the migration shifted them down to these 31.
 */
export function factKeyOfFolded(folded: string): number {
  // The one-shot hash costs half of a createHash/update/digest round on short texts, and a digest
  // handed back as a 'binary' (latin1) string, one character a byte, half of one handed back as a Buffer.
  const digest = hash('sha256', folded, 'binary');
  return (
    ((digest.charCodeAt(0) << 24) |
      (digest.charCodeAt(1) << 16) |
      (digest.charCodeAt(2) << 8) |
      digest.charCodeAt(3)) >>>
    1
  );
}
