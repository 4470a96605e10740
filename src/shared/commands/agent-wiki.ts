import { z } from 'zod';
import { defineCommand } from './define';
import { id } from '../schemas';
import { wikiCommands } from './wiki';

/**
 * The wiki as an agent may read it: the pages memory_search can return (USER.md and the section
 * folders), each only where the caller sees every scope in its `scopes` front matter. The
 * owner's wiki.read and wiki.tree show the whole wiki; these never show more than memory_search.
 */
const viewer = id
  .optional()
  .describe(
    'Read as this session: only pages it could find with memory_search (every scope in a page\'s "scopes" front matter among its scopes). Without it, every page the caller may read.',
  );

const pageListing = z.object({
  path: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  updated: z.string().nullable(),
  tags: z.array(z.string()),
});

export const agentWikiCommands = {
  'memory.wiki.list': defineCommand({
    description:
      'The wiki pages this session may read (USER.md, topics, entities, sources, comparisons, imports, notes), with title and front matter; pages confined to scopes it cannot see are not listed.',
    mutates: false,
    input: () => z.object({ sessionId: viewer }).strict(),
    output: () => z.object({ pages: z.array(pageListing) }),
  }),
  'memory.wiki.read': defineCommand({
    description:
      'Read one wiki page this session may see: its Markdown and front matter. A page confined to scopes the session cannot see answers not_found, like a missing page.',
    mutates: false,
    input: () =>
      z
        .object({
          sessionId: viewer,
          path: z
            .string()
            .max(1000)
            .describe(
              'The page, relative to the wiki, e.g. "topics/sqlite.md" or "USER.md" (a path memory_search cited or memory_list_wiki_pages listed).',
            ),
        })
        .strict(),
    output: () => wikiCommands['wiki.read'].output.extend({ title: z.string().nullable() }),
  }),
} as const;
