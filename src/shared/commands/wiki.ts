import { z } from 'zod';
import { defineCommand } from './define';
import { localPath } from '../schemas';

const pagePath = z.string().max(1000);
const PATH_EXAMPLE = 'relative to the wiki, e.g. "topics/sqlite.md" or "USER.md"';
const confidenceOrNull = z.enum(['low', 'medium', 'high']).nullable();

export const treeEntry = z.object({
  path: z.string(),
  /** The page's first heading, or null. */
  title: z.string().nullable(),
  description: z.string().nullable(),
  updated: z.string().nullable(),
  tags: z.array(z.string()),
  confidence: confidenceOrNull,
  sources: z.array(z.string()),
});

export const LINT_CATEGORIES = [
  'broken_link',
  'orphan_page',
  'missing_front_matter',
  'stale_page',
  'low_confidence',
  'index_drift',
  'deleted_session',
  'forgotten_mention',
] as const;
export type LintCategory = (typeof LINT_CATEGORIES)[number];

export const lintFinding = z.object({
  category: z.enum(LINT_CATEGORIES),
  path: z.string(),
  message: z.string(),
  /** The 1-based line a forgotten_mention finding points at. */
  line: z.number().int().optional(),
});

export const wikiCommands = {
  'wiki.tree': defineCommand({
    description:
      "The wiki by section (system, notes, imports, topics, entities, sources, comparisons) with each page's front matter. unprocessedOnly keeps only the notes Dream has not consumed yet.",
    mutates: false,
    input: () =>
      z
        .object({
          unprocessedOnly: z.boolean().default(false).describe('List only the daily notes Dream has not consumed yet.'),
        })
        .strict(),
    output: () =>
      z.object({
        system: z.array(treeEntry),
        notes: z.array(treeEntry),
        imports: z.array(treeEntry),
        topics: z.array(treeEntry),
        entities: z.array(treeEntry),
        sources: z.array(treeEntry),
        comparisons: z.array(treeEntry),
      }),
  }),
  'wiki.read': defineCommand({
    description: 'One wiki page: its raw content and front matter. Paths are relative, e.g. topics/sqlite.md.',
    mutates: false,
    input: () => z.object({ path: pagePath.describe(`The page to read, ${PATH_EXAMPLE}.`) }).strict(),
    output: () =>
      z.object({
        path: z.string(),
        content: z.string(),
        body: z.string(),
        meta: treeEntry.omit({ path: true, title: true }).extend({ related: z.array(z.string()) }),
        /** Pass it back to wiki.write as expectedVersion to refuse overwriting a change made meanwhile. */
        version: z.string(),
      }),
  }),
  'wiki.write': defineCommand({
    description: 'Create or replace a wiki page atomically. notes/ (Dream input) and LOG.md (append-only) are refused.',
    mutates: true,
    input: () =>
      z
        .object({
          path: pagePath.describe(`The page to write, ${PATH_EXAMPLE}; not notes/ or LOG.md.`),
          content: z
            .string()
            .max(1_000_000, 'must be at most 1,000,000 characters')
            .describe('The whole page, Markdown with optional YAML front matter.'),
          expectedVersion: z
            .string()
            .max(100)
            .optional()
            .describe(
              "The version wiki.read returned ('absent' for a new page): the write is refused with a conflict when the file changed since",
            ),
        })
        .strict(),
    output: () => z.object({ path: z.string(), created: z.boolean(), version: z.string() }),
  }),
  'wiki.delete': defineCommand({
    description:
      'Delete a wiki page. USER.md, INDEX.md and LOG.md are protected (overwrite them instead); notes/ is read-only.',
    mutates: true,
    input: () => z.object({ path: pagePath.describe(`The page to delete, ${PATH_EXAMPLE}.`) }).strict(),
    output: () => z.object({ path: z.string() }),
  }),
  'wiki.notes.append': defineCommand({
    description:
      "Append a timestamped entry to today's daily note (notes/YYYY-MM-DD.md, UTC); Dream consumes it later.",
    mutates: true,
    input: () =>
      z
        .object({
          content: z
            .string()
            .max(100_000, 'must be at most 100,000 characters')
            .describe('The entry, e.g. "Billing moves to Postgres 16 next sprint".'),
        })
        .strict(),
    output: () => z.object({ path: z.string() }),
  }),
  'wiki.lint': defineCommand({
    description:
      'Check the wiki (broken [[links]], orphan pages, missing front matter, stale pages, low confidence, index drift, source pages of deleted sessions, lines that still mention a forgotten session or fact) and write LINT.md. Nothing else is changed.',
    mutates: true,
    input: () => z.object({}).strict(),
    output: () => z.object({ generatedAt: z.number().int(), issues: z.number().int(), findings: z.array(lintFinding) }),
  }),
  'wiki.export': defineCommand({
    description:
      'Write every semantic fact as Markdown, one page per scope, plus INDEX.md. dir defaults to <home>/wiki-export.',
    mutates: true,
    input: () =>
      z
        .object({
          dir: localPath()
            .optional()
            .describe('Folder to write into, e.g. "/tmp/memory-export"; default <home>/wiki-export.'),
        })
        .strict(),
    output: () =>
      z.object({
        dir: z.string(),
        facts: z.number().int(),
        pages: z.array(
          z.object({ file: z.string(), scope: z.string(), scopeKey: z.string(), facts: z.number().int() }),
        ),
      }),
  }),
} as const;
