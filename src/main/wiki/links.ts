/** `[[slug]]`, `[[slug|label]]`, `[[topics/slug]]` and `[[slug.md]]` all name the page `slug`. */
const WIKILINK = /\[\[([^\]\n]+?)\]\]/g;

export function linkSlug(raw: string): string {
  let s = raw.split(/[|#]/)[0]!.trim();
  if (s.includes('/')) s = s.slice(s.lastIndexOf('/') + 1);
  if (s.toLowerCase().endsWith('.md')) s = s.slice(0, -3);
  return s.toLowerCase();
}

/** Every distinct page a text links to, in first-seen order. */
export function extractWikiLinks(text: string): string[] {
  const seen = new Set<string>();
  for (const m of text.matchAll(WIKILINK)) {
    const slug = linkSlug(m[1]!);
    if (slug) seen.add(slug);
  }
  return [...seen];
}

/** Lowercase-kebab-case from any text, bounded; empty input gives the fallback. */
export function slugify(text: string, fallback = 'page', max = 60): string {
  const s = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');
  return s || fallback;
}
