import { hash } from 'node:crypto';

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
 * The lookup key of a fact within its scope, from its folded text (foldForKey): the first 52
 * bits (13 hex digits) of sha256, as an integer (exact in JavaScript and SQLite). An integer
 * key keeps the lookup index small (it is hit at random on every upsert); it is not unique, so
 * the store confirms a hit by comparing folded texts and a collision can never merge two facts.
 */
export function factKeyOfFolded(folded: string): number {
  // The one-shot hash costs half of a createHash/update/digest round on short texts.
  const digest = hash('sha256', folded, 'buffer');
  return digest.readUIntBE(0, 6) * 16 + (digest[6]! >> 4);
}
