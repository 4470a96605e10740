import { parsePage, renderPage } from '../wiki/front-matter';
import { KNOWLEDGE_SECTIONS, ROOT_FILES, SECTIONS } from '../wiki/layout';
import { SCOPES_KEY, scopeLabel } from '../wiki/page-scopes';
import type { WikiService } from '../wiki/service';
import { sessionSourceLinkSlugs, sessionSourcePaths } from './source-page';

/**
 * What a forget does to the wiki. Only what the program wrote is changed: a forgotten session's
 * source page is deleted, every Dream bullet anchored `<!-- fact:ID -->` of a deleted fact is
 * removed, Dream's bullets stop citing the forgotten session's page, Dream's front-matter lists
 * (`sources`, `related`, `scopes`) drop it, and a Dream group page left with nothing but its
 * heading goes. Text a person wrote is never rewritten: every line that still mentions a
 * forgotten session or fact afterwards is reported (page and line) for the person to edit.
 */
export interface ForgetTargets {
  sessionIds: readonly string[];
  factIds: readonly string[];
  /** The deleted facts' texts; known only before the forget commits (preview and the run itself). */
  factTexts?: readonly string[];
}

export interface WikiPageChange {
  path: string;
  change: 'delete' | 'edit';
}

export interface WikiMention {
  path: string;
  /** 1-based line in the page as it is after the clean-up. */
  line: number;
  text: string;
}

export interface WikiForgetPlan {
  changes: WikiPageChange[];
  mentions: WikiMention[];
  /** New content per changed page (null: delete). */
  writes: Map<string, string | null>;
}

/** Pages rebuilt from scratch after every clean-up; never reported as mentions. */
const REGENERATED = new Set(['INDEX.md', 'LINT.md']);
/** Where a scope label of a forgotten session stood: keeps the page out of every session's search. */
export const FORGOTTEN_SCOPE = 'session:forgotten';
const DREAM_FACT_ANCHOR = /<!-- fact:([^\s>]+) -->\s*$/;
const MIN_TEXT_MENTION = 10;

const normalize = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every page of the wiki: root files first, then each section's pages. */
export function allPages(wiki: WikiService): string[] {
  return [...ROOT_FILES, ...SECTIONS.flatMap((s) => wiki.listSection(s).map((n) => `${s}/${n}`))];
}

class Matchers {
  readonly stems: Set<string>;
  /** Slugs of the pages the clean-up deletes: Dream's links to them go too. */
  readonly deletedSlugs = new Set<string>();
  readonly sessionIds: Set<string>;
  readonly factIds: Set<string>;
  private readonly words: RegExp | null;
  private readonly texts: string[];
  private readonly cites: RegExp | null;
  private readonly tokens: string[];

  constructor(t: ForgetTargets) {
    this.sessionIds = new Set(t.sessionIds);
    this.factIds = new Set(t.factIds);
    this.stems = new Set(t.sessionIds.flatMap(sessionSourceLinkSlugs));
    const words = [...this.sessionIds, ...this.factIds, ...this.stems].map(escapeRe);
    this.words = words.length ? new RegExp(`(?:^|[^A-Za-z0-9-])(?:${words.join('|')})(?![A-Za-z0-9-])`, 'i') : null;
    this.texts = (t.factTexts ?? []).map(normalize).filter((x) => x.length >= MIN_TEXT_MENTION);
    const stems = [...this.stems].map(escapeRe);
    this.cites = stems.length ? new RegExp(`\\s*\\[\\[(?:${stems.join('|')})\\]\\]`, 'gi') : null;
    this.tokens = [...this.sessionIds, ...this.factIds, ...this.stems].map((x) => x.toLowerCase());
  }

  /** Whether the page could hold anything the clean-up changes: most pages are skipped unparsed. */
  touches(content: string): boolean {
    const lower = content.toLowerCase();
    return this.tokens.some((x) => lower.includes(x)) || [...this.deletedSlugs].some((slug) => lower.includes(slug));
  }

  mentions(line: string): boolean {
    if (this.words?.test(line)) return true;
    if (this.texts.length === 0) return false;
    const n = normalize(line);
    return this.texts.some((t) => n.includes(t));
  }

  /** A Dream bullet minus its citations of forgotten source pages. */
  stripCites(line: string): string {
    if (!this.cites) return line;
    return line.replace(this.cites, '').replace(/ —(\s*<!--)/, '$1');
  }
}

/** Dream touched the page: it carries Dream's front matter or one of its fact anchors. */
function dreamPage(data: Record<string, unknown> | null, body: string): boolean {
  return (
    (data !== null && (SCOPES_KEY in data || 'dream_group' in data || 'session' in data)) ||
    /<!-- fact:[^\s>]+ -->/.test(body)
  );
}

function editFrontMatter(data: Record<string, unknown>, m: Matchers): Record<string, unknown> {
  const next = { ...data };
  const gone = (x: unknown) => m.stems.has(String(x)) || m.deletedSlugs.has(String(x));
  for (const key of ['sources', 'related']) {
    if (Array.isArray(next[key])) next[key] = (next[key] as unknown[]).filter((x) => !gone(x));
  }
  if (Array.isArray(next[SCOPES_KEY])) {
    const forgotten = new Set([...m.sessionIds].map((id) => scopeLabel('session', id)));
    const scopes = (next[SCOPES_KEY] as unknown[]).map((x) => (forgotten.has(String(x)) ? FORGOTTEN_SCOPE : x));
    next[SCOPES_KEY] = [...new Set(scopes)];
  }
  return next;
}

/** Nothing but Dream's skeleton is left: its heading, the `## Facts` heading and blank lines. */
function emptyGroupPage(data: Record<string, unknown>, lines: string[]): boolean {
  if (!data.dream_group) return false;
  return lines.every((l) => !l.trim() || /^# /.test(l) || /^## Facts\s*$/.test(l));
}

/** The source page of a forgotten session: named by its front matter, or at its path and owned by nobody else. */
function isForgottenSourcePage(rel: string, owner: string | null, m: Matchers): boolean {
  if (rel.startsWith('sources/') && owner !== null && m.sessionIds.has(owner)) return true;
  return [...m.sessionIds].some((id) => sessionSourcePaths(id).includes(rel) && (owner === null || owner === id));
}

/** The page after the clean-up: null to delete it, the same text when nothing is Dream's to change. */
function cleanPage(rel: string, content: string, m: Matchers): string | null {
  if (!m.touches(content) && ![...m.sessionIds].some((id) => sessionSourcePaths(id).includes(rel))) return content;
  const page = parsePage(content);
  const owner = typeof page.data?.session === 'string' ? page.data.session : null;
  if (isForgottenSourcePage(rel, owner, m)) return null;
  if (!dreamPage(page.data, page.body)) return content;
  // A source page is Dream's outright: its `## Related` list loses the pages that go.
  const related = owner !== null ? /^- \[\[([^\]]+)\]\]\s*$/ : null;
  const lines = page.body
    .split('\n')
    .filter((l) => !m.factIds.has(DREAM_FACT_ANCHOR.exec(l)?.[1] ?? ''))
    .filter((l) => !m.deletedSlugs.has(related?.exec(l)?.[1] ?? ''))
    .map((l) => (DREAM_FACT_ANCHOR.test(l) ? m.stripCites(l) : l));
  const data = page.data ? editFrontMatter(page.data, m) : null;
  if (data && emptyGroupPage(data, lines)) return null;
  const body = lines.join('\n');
  if (body === page.body && JSON.stringify(data) === JSON.stringify(page.data)) return content;
  return renderPage(data, body);
}

const inDreamFolder = (rel: string) =>
  rel.includes('/') && (KNOWLEDGE_SECTIONS as readonly string[]).includes(rel.split('/')[0]!);
const slugOf = (rel: string) => rel.slice(rel.indexOf('/') + 1, -3).toLowerCase();

/** Works out the clean-up without writing anything: the forget preview, and the run under the lock. */
export function planWikiForget(wiki: WikiService, targets: ForgetTargets): WikiForgetPlan {
  const m = new Matchers(targets);
  const plan: WikiForgetPlan = { changes: [], mentions: [], writes: new Map() };
  if (m.sessionIds.size + m.factIds.size === 0) return plan;
  const pages = allPages(wiki)
    .map((rel) => ({ rel, content: readQuietly(wiki, rel) }))
    .filter((p): p is { rel: string; content: string } => p.content !== null);
  // Only the knowledge folders hold Dream's pages; root files, notes and imports are never rewritten.
  // First the pages that go, so that Dream's links to them go in the same clean-up.
  const first = new Map(pages.filter((p) => inDreamFolder(p.rel)).map((p) => [p.rel, cleanPage(p.rel, p.content, m)]));
  for (const [rel, next] of first) if (next === null) m.deletedSlugs.add(slugOf(rel));
  const extra = [...m.deletedSlugs].filter((slug) => !m.stems.has(slug));
  for (const { rel, content } of pages) {
    if (REGENERATED.has(rel)) continue;
    // Only a page linking a deleted group page needs a second look (source pages are handled already).
    const again = first.get(rel) !== null && extra.some((slug) => content.toLowerCase().includes(slug));
    const next = !first.has(rel) ? content : again ? cleanPage(rel, content, m) : first.get(rel)!;
    if (next !== content) {
      plan.changes.push({ path: rel, change: next === null ? 'delete' : 'edit' });
      plan.writes.set(rel, next);
    }
    (next ?? '').split('\n').forEach((text, i) => {
      if (m.mentions(text)) plan.mentions.push({ path: rel, line: i + 1, text: text.trim().slice(0, 300) });
    });
  }
  // INDEX.md and LINT.md are rebuilt after the clean-up: listed when they name something that goes.
  const stale = (l: string) =>
    m.mentions(l) || [...m.deletedSlugs].some((slug) => l.includes(`[[${slug}]]`) || l.includes(`/${slug}.md`));
  for (const { rel, content } of pages) {
    if (REGENERATED.has(rel) && content.split('\n').some(stale)) plan.changes.push({ path: rel, change: 'edit' });
  }
  return plan;
}

function readQuietly(wiki: WikiService, rel: string): string | null {
  try {
    return wiki.readText(rel);
  } catch {
    return null; // a page lint already reports (a symlink out of the wiki): not ours to touch
  }
}

/**
 * Applies the clean-up under the wiki lock: planned again inside it (a page may have changed since
 * the preview), each page replaced atomically or deleted. INDEX.md and LINT.md are rebuilt by the
 * caller afterwards.
 */
export async function cleanWikiAfterForget(wiki: WikiService, targets: ForgetTargets): Promise<WikiForgetPlan> {
  return wiki.withWriteLock(async () => {
    const plan = planWikiForget(wiki, targets);
    const edits = [...plan.writes].filter((w): w is [string, string] => w[1] !== null);
    await wiki.writeMany(edits.map(([path, content]) => ({ path, content })));
    for (const [rel, content] of plan.writes) if (content === null && wiki.exists(rel)) await wiki.delete(rel);
    return plan;
  });
}
