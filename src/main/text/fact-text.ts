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
 * The lookup key of a fact within its scope, from its folded text (foldForKey): the first 31
 * bits of sha256, as an integer (four bytes in a SQLite record). An integer key keeps the lookup
 * index small (it is hit at random on every upsert); it is not unique, so the store confirms a
 * hit by comparing folded texts and a collision can never merge two facts. Stores before
 * migration 104 kept 52 bits; the migration shifted them down to these 31.
 */
export function factKeyOfFolded(folded: string): number {
  // The one-shot hash costs half of a createHash/update/digest round on short texts.
  return hash('sha256', folded, 'buffer').readUInt32BE(0) >>> 1;
}
