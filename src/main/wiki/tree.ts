import { existsSync } from 'node:fs';
import path from 'node:path';
import { emptyMeta, type PageMeta } from './front-matter';
import { ROOT_FILES, SECTIONS, TREE_SECTIONS, type TreeSection } from './layout';
import type { WikiService } from './service';

export interface TreeEntry extends Omit<PageMeta, 'related'> {
  path: string;
  /** The page's first heading, for people (file names of Dream's pages are hashed slugs). */
  title: string | null;
}

export type WikiTree = Record<TreeSection, TreeEntry[]>;

function entry(wiki: WikiService, rel: string): TreeEntry {
  let meta: PageMeta = emptyMeta();
  let title: string | null = null;
  try {
    const summary = wiki.summary(rel);
    meta = summary?.meta ?? meta;
    title = summary?.title ?? null;
  } catch {
    // Unreadable (or a symlink out of the wiki): still listed, with no metadata.
  }
  const { related: _related, ...rest } = meta;
  return { path: rel, title, ...rest };
}

/**
 * The wiki's sections with each page's metadata. `keepNote`, when given, filters the notes
 * section (to the notes Dream has not yet consumed).
 */
export function wikiTree(wiki: WikiService, keepNote?: (name: string) => boolean): WikiTree {
  const tree = Object.fromEntries(TREE_SECTIONS.map((s) => [s, [] as TreeEntry[]])) as WikiTree;
  for (const f of ROOT_FILES) if (existsSync(path.join(wiki.root, f))) tree.system.push(entry(wiki, f));
  for (const section of SECTIONS) {
    for (const name of wiki.listSection(section)) {
      if (section === 'notes' && keepNote && !keepNote(name)) continue;
      tree[section].push(entry(wiki, `${section}/${name}`));
    }
  }
  return tree;
}
