import type { WikiService } from '../wiki/service';
import { compareCodeUnits } from '../../shared/locale-free';

const STOPWORDS = new Set(
  'a an and are as at be by for from in into is it of on or the to vs with without use uses using we our my'.split(' '),
);

const stem = (t: string) => (t.length > 3 && t.endsWith('s') && !t.endsWith('ss') ? t.slice(0, -1) : t);

/** Lowercase word stems of a text, Unicode-aware, without stopwords. */
export function wordStems(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)) {
    if (w.length >= 2 && !STOPWORDS.has(w)) out.add(stem(w));
  }
  return out;
}

interface Entry {
  rel: string;
  stems: string[];
}

/**
 * The existing topic and entity pages a fact can be merged into, matched by name: a page fits a
 * fact when every word of its slug occurs in the fact (`entities/postgres.md` fits "We deploy
 * Postgres 16"). The most specific fit wins. Dream's own per-scope group pages are not
 * candidates: they are the fallback, not a subject.
 */
export class PageCatalog {
  private readonly byStem = new Map<string, Entry[]>();
  private readonly known = new Set<string>();

  static load(wiki: WikiService): PageCatalog {
    const c = new PageCatalog();
    for (const section of ['entities', 'topics'] as const) {
      for (const name of wiki.listSection(section)) {
        const rel = `${section}/${name}`;
        // A page that is a symlink (to USER.md, say) is never a merge target: writes refuse it.
        if (!wiki.writable(rel)) continue;
        let group: boolean;
        try {
          group = wiki.summary(rel)?.data?.dream_group !== undefined;
        } catch {
          continue;
        }
        if (!group) c.add(rel);
      }
    }
    return c;
  }

  add(rel: string): void {
    if (this.known.has(rel)) return;
    this.known.add(rel);
    const slug = rel.slice(rel.indexOf('/') + 1, -3);
    const stems = [...wordStems(slug.replace(/[-_.]+/g, ' '))];
    if (stems.length === 0) return;
    const entry = { rel, stems };
    for (const s of stems) {
      const list = this.byStem.get(s) ?? [];
      list.push(entry);
      this.byStem.set(s, list);
    }
  }

  match(text: string): string | null {
    const words = wordStems(text);
    let best: Entry | null = null;
    for (const w of words) {
      for (const e of this.byStem.get(w) ?? []) {
        if (!e.stems.every((s) => words.has(s))) continue;
        if (
          !best ||
          e.stems.length > best.stems.length ||
          (e.stems.length === best.stems.length && compareCodeUnits(e.rel, best.rel) < 0)
        ) {
          best = e;
        }
      }
    }
    return best?.rel ?? null;
  }
}
