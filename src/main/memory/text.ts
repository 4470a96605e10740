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

/**
 * The unique key of a fact within its scope: the first 128 bits of sha256 over the folded text,
 * as hex. Half the full digest keeps the dedup index small (it is hit at random on every
 * upsert) while a collision stays out of reach for any real store.
 */
export function factKey(text: string): string {
  return createHash('sha256').update(foldForKey(text)).digest('hex').slice(0, 32);
}
