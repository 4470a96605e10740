import { createHash } from 'node:crypto';

/** NFC with whitespace runs collapsed: the stored form of a fact's text. */
export function normalizeFactText(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

/**
 * The dedup form of a text: case-folded, punctuation folded to spaces, whitespace collapsed.
 * "Use  pnpm." and "use pnpm" are the same fact; "use pnpm 9" is not.
 */
export function foldForKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/ß/gu, 'ss')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** sha256 hex of the folded text: the unique key of a fact within its scope. */
export function factKey(text: string): string {
  return createHash('sha256').update(foldForKey(text)).digest('hex');
}
