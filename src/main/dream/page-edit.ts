import { parsePage, renderPage } from '../wiki/front-matter';
import type { WikiService } from '../wiki/service';

const ANCHOR = /<!-- ((?:fact|note):[^\s>]+) -->\s*$/;
const FACTS_HEADING = /^## Facts\b/;

/**
 * A page Dream edits in memory: front matter as a mapping, body as lines, and the bullets it
 * manages found by their trailing `<!-- fact:ID -->` anchor. Updating a fact rewrites its own
 * line in place; a new fact is appended to the `## Facts` section. Everything else on the page
 * (what a person wrote) is kept as it was.
 */
export class EditablePage {
  dirty = false;
  private readonly anchors = new Map<string, number>();
  private readonly appended: string[] = [];

  private constructor(
    readonly rel: string,
    readonly existed: boolean,
    public data: Record<string, unknown>,
    private lines: string[],
  ) {
    lines.forEach((l, i) => {
      const m = ANCHOR.exec(l);
      if (m) this.anchors.set(m[1]!, i);
    });
  }

  clone(): EditablePage {
    const copy = new EditablePage(this.rel, this.existed, { ...this.data }, [...this.lines]);
    copy.appended.push(...this.appended);
    copy.dirty = this.dirty;
    return copy;
  }

  static from(rel: string, content: string | null): EditablePage {
    if (content === null) return new EditablePage(rel, false, {}, []);
    const parsed = parsePage(content);
    return new EditablePage(rel, true, parsed.data ?? {}, parsed.body.split('\n'));
  }

  get isEmpty(): boolean {
    return this.lines.every((l) => !l.trim()) && this.appended.length === 0;
  }

  /** The current line of a managed bullet, if the page has it. */
  bullet(anchor: string): string | null {
    const i = this.anchors.get(anchor);
    if (i !== undefined) return this.lines[i]!;
    return this.appended.find((l) => l.endsWith(`<!-- ${anchor} -->`)) ?? null;
  }

  upsertBullet(anchor: string, text: string): void {
    const line = `- ${text} <!-- ${anchor} -->`;
    const i = this.anchors.get(anchor);
    if (i !== undefined) {
      if (this.lines[i] !== line) {
        this.lines[i] = line;
        this.dirty = true;
      }
      return;
    }
    const j = this.appended.findIndex((l) => l.endsWith(`<!-- ${anchor} -->`));
    if (j >= 0) this.appended[j] = line;
    else this.appended.push(line);
    this.dirty = true;
  }

  /** Replaces the whole body (for pages Dream owns outright, like source summaries). */
  setBody(body: string): void {
    const next = body.split('\n');
    if (next.join('\n') !== this.lines.join('\n') || this.appended.length) this.dirty = true;
    this.lines = next;
    this.anchors.clear();
    this.appended.length = 0;
  }

  set(key: string, value: unknown): void {
    if (JSON.stringify(this.data[key]) !== JSON.stringify(value)) {
      this.data = { ...this.data, [key]: value };
      this.dirty = true;
    }
  }

  setDefault(key: string, value: unknown): void {
    if (this.data[key] === undefined || this.data[key] === null || this.data[key] === '') this.set(key, value);
  }

  /** Adds items to a list key, keeping first-seen order and at most `cap` (the newest) entries. */
  addToList(key: string, items: string[], cap = 50): void {
    const current = Array.isArray(this.data[key]) ? (this.data[key] as unknown[]).map(String) : [];
    const merged = [...current.filter((x) => !items.includes(x)), ...items.filter((x, i) => items.indexOf(x) === i)];
    const next = merged.slice(-cap);
    if (!current.every((x) => next.includes(x)) || next.length !== current.length) this.set(key, next);
  }

  render(): string {
    let lines = [...this.lines];
    if (this.appended.length) {
      let heading = lines.findIndex((l) => FACTS_HEADING.test(l));
      if (heading < 0) {
        while (lines.length && !lines[lines.length - 1]!.trim()) lines.pop();
        lines.push('', '## Facts', '');
        heading = lines.length - 2;
      }
      let end = lines.findIndex((l, i) => i > heading && /^## /.test(l));
      if (end < 0) end = lines.length;
      let insertAt = end;
      while (insertAt > heading + 1 && !lines[insertAt - 1]!.trim()) insertAt--;
      const before = lines.slice(0, insertAt);
      if (insertAt === heading + 1) before.push('');
      lines = [...before, ...this.appended, ...(end < lines.length ? ['', ...lines.slice(end)] : [''])];
    }
    const body = lines
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .replace(/\n*$/, '\n');
    return renderPage(this.data, body);
  }
}

/** The pages one Dream batch touches, loaded once and written once, all under the wiki lock. */
export class PageSet {
  private readonly pages = new Map<string, EditablePage>();

  constructor(private readonly wiki: WikiService) {}

  get(rel: string): EditablePage {
    let page = this.pages.get(rel);
    if (!page) {
      page = EditablePage.from(rel, this.wiki.tryRead(rel)?.content ?? null);
      this.pages.set(rel, page);
    }
    return page;
  }

  has(rel: string): boolean {
    return this.pages.has(rel) || this.wiki.exists(rel);
  }

  /** A cheap copy of the page states (no rendering), to roll one failed item back. */
  snapshot(): Map<string, EditablePage> {
    return new Map([...this.pages].map(([rel, page]) => [rel, page.clone()]));
  }

  restore(snap: Map<string, EditablePage>): void {
    this.pages.clear();
    for (const [rel, page] of snap) this.pages.set(rel, page);
  }

  /** Writes every changed page atomically; returns the paths written. */
  async flush(): Promise<string[]> {
    const dirty = [...this.pages.values()].filter((p) => p.dirty);
    const written = await this.wiki.writeMany(dirty.map((p) => ({ path: p.rel, content: p.render() })));
    for (const p of dirty) p.dirty = false;
    return written;
  }
}
