/**
 * The fixed shape of the wiki: a few root files and one level of section folders. Keeping it
 * this flat is what lets path validation be a whitelist instead of a guess.
 */
export const ROOT_FILES = ['USER.md', 'INDEX.md', 'LOG.md', 'LINT.md'] as const;

export const SECTIONS = ['topics', 'entities', 'sources', 'comparisons', 'imports', 'notes'] as const;
export type Section = (typeof SECTIONS)[number];

/** Pages Dream and people curate; `[[slug]]` links resolve against these folders. */
export const KNOWLEDGE_SECTIONS = [
  'topics',
  'entities',
  'sources',
  'comparisons',
] as const satisfies readonly Section[];

/** Deleting these would lose the profile, the catalogue or the audit trail; overwrite them instead. */
export const PROTECTED_FROM_DELETE: readonly string[] = ['USER.md', 'INDEX.md', 'LOG.md'];

/** Written only by the wiki service's own append helpers, never by a plain write. */
export const APPEND_ONLY: readonly string[] = ['LOG.md'];

/** Dream input: daily notes are appended by people and agents and never rewritten by a page write. */
export const READ_ONLY_SECTIONS: readonly Section[] = ['notes'];

/** Tree order: root files first, then inputs, then knowledge. */
export const TREE_SECTIONS = ['system', 'notes', 'imports', 'topics', 'entities', 'sources', 'comparisons'] as const;
export type TreeSection = (typeof TREE_SECTIONS)[number];
