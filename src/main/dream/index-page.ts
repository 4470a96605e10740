import { KNOWLEDGE_SECTIONS } from '../wiki/layout';
import type { WikiService } from '../wiki/service';

const LABEL: Record<(typeof KNOWLEDGE_SECTIONS)[number], string> = {
  topics: 'Topics',
  entities: 'Entities',
  sources: 'Sources',
  comparisons: 'Comparisons',
};

const oneLine = (s: string) => s.replace(/\s+/g, ' ').replace(/\[\[/g, '[\\[').trim().slice(0, 200);

/** INDEX.md regenerated from the pages that exist: every knowledge page with its description. */
export function renderIndex(wiki: WikiService, today: string): string {
  const sections = KNOWLEDGE_SECTIONS.map((s) => {
    const rows = wiki.listSection(s).map((name) => {
      let description: string | null = null;
      try {
        description = wiki.summary(`${s}/${name}`)?.meta.description ?? null;
      } catch {
        // Listed without a description.
      }
      return `- [[${name.slice(0, -3)}]]${description ? ` — ${oneLine(description)}` : ''}`;
    });
    return [`## ${LABEL[s]} (${rows.length})`, '', ...(rows.length ? rows : ['- (none)']), ''];
  });
  return [
    '# Wiki Index',
    '',
    `Rebuilt by Dream on ${today} UTC from the pages that exist. Edit pages, not this file: the next run rewrites it.`,
    '',
    ...sections.flat(),
  ].join('\n');
}

export async function rebuildIndex(wiki: WikiService, today: string): Promise<boolean> {
  return wiki.withWriteLock(async () => {
    const next = renderIndex(wiki, today);
    if (wiki.tryRead('INDEX.md')?.content === next) return false;
    await wiki.write('INDEX.md', next);
    return true;
  });
}
