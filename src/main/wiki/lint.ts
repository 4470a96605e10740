import { KNOWLEDGE_SECTIONS, ROOT_FILES } from './layout';
import type { PageSummary, WikiService } from './service';
import { renderPage } from './front-matter';
import { LINT_CATEGORIES, type LintCategory } from '../../shared/commands/wiki';
import { compareCodeUnits } from '../../shared/locale-free';
import { mentionFindings, type MentionChecks } from './lint-mentions';

const ROOT_LINK_TARGETS = new Set(ROOT_FILES.map((f) => f.slice(0, -3).toLowerCase()));

const LABELS: Record<LintCategory, string> = {
  broken_link: 'Broken links',
  orphan_page: 'Orphan pages',
  missing_front_matter: 'Missing front matter',
  stale_page: 'Stale pages',
  low_confidence: 'Low confidence',
  index_drift: 'Index drift',
  deleted_session: 'Deleted sessions',
  forgotten_mention: 'Mentions of forgotten sessions and facts',
};

export interface LintFinding {
  category: LintCategory;
  path: string;
  message: string;
  line?: number;
}

export interface LintReport {
  generatedAt: number;
  issues: number;
  findings: LintFinding[];
}

export interface LintOptions {
  now: number;
  /**
   * Whether the session a `sources/session-<slug>.md` page summarises still exists. The page's
   * front matter `session` id is passed when present; the slug always is.
   */
  sessionExists?: (ref: { sessionId: string | null; slug: string }) => boolean;
  /** Finds lines that still mention forgotten sessions and facts (page and line). */
  mentions?: MentionChecks;
}

/** Pages not updated for this long are reported stale (about six months). */
export const STALE_AFTER_MS = 183 * 24 * 3600 * 1000;

interface Loaded {
  page: PageSummary | null;
  rel: string;
  slug: string;
  section: string;
}

type AddFinding = (category: LintCategory, path: string, message: string) => void;

function loadPages(wiki: WikiService, add: AddFinding): Loaded[] {
  const pages: Loaded[] = [];
  for (const section of KNOWLEDGE_SECTIONS) {
    for (const name of wiki.listSection(section)) {
      const rel = `${section}/${name}`;
      let page: PageSummary | null = null;
      try {
        page = wiki.summary(rel);
      } catch {
        add('missing_front_matter', rel, 'cannot be read');
      }
      pages.push({ page, rel, slug: name.slice(0, -3).toLowerCase(), section });
    }
  }
  return pages;
}

/** Reports links to missing pages; returns how many links reach each page. */
function checkLinks(wiki: WikiService, pages: Loaded[], slugs: Set<string>, add: AddFinding): Map<string, number> {
  const inbound = new Map<string, number>();
  for (const p of pages) {
    for (const target of p.page?.links ?? []) {
      if (target === p.slug) continue;
      // [[INDEX]], [[USER]] ... name the root files, which the window opens like any page.
      if (ROOT_LINK_TARGETS.has(target) && wiki.exists(`${target.toUpperCase()}.md`)) continue;
      if (!slugs.has(target)) add('broken_link', p.rel, `links to [[${target}]], which has no page`);
      else inbound.set(target, (inbound.get(target) ?? 0) + 1);
    }
  }
  return inbound;
}

function checkFrontMatter(p: Loaded & { page: PageSummary }, now: number, add: AddFinding): void {
  const { meta } = p.page;
  const hasFront = p.page.data !== null && Object.keys(p.page.data).length > 0;
  if (!hasFront) {
    add('missing_front_matter', p.rel, 'has no front matter (description, tags, updated, confidence, sources)');
  } else {
    const missing = [!meta.description && 'description', !meta.updated && 'updated'].filter(Boolean);
    if (missing.length) add('missing_front_matter', p.rel, `front matter lacks ${missing.join(' and ')}`);
  }
  if (meta.updated) {
    const t = Date.parse(meta.updated);
    if (Number.isNaN(t)) add('stale_page', p.rel, `updated "${meta.updated}" is not a date`);
    else if (now - t > STALE_AFTER_MS) add('stale_page', p.rel, `not updated since ${meta.updated}`);
  }
  if (meta.confidence === 'low') add('low_confidence', p.rel, 'confidence: low');
}

function checkSourceSession(p: Loaded & { page: PageSummary }, options: LintOptions, add: AddFinding): void {
  if (p.section !== 'sources' || !p.slug.startsWith('session-') || !options.sessionExists) return;
  const sessionId = typeof p.page.data?.session === 'string' ? p.page.data.session : null;
  if (options.sessionExists({ sessionId, slug: p.slug.slice('session-'.length) })) return;
  add('deleted_session', p.rel, 'its session was deleted; the page was kept for inspection (delete it if unwanted)');
}

function checkIndex(wiki: WikiService, pages: Loaded[], slugs: Set<string>, add: AddFinding): void {
  const index = wiki.summary('INDEX.md');
  if (!index) {
    add('index_drift', 'INDEX.md', 'INDEX.md is missing');
    return;
  }
  const listed = new Set(index.links);
  for (const s of listed) if (!slugs.has(s)) add('index_drift', 'INDEX.md', `lists [[${s}]], which has no page`);
  for (const p of pages) if (!listed.has(p.slug)) add('index_drift', p.rel, 'is not listed in INDEX.md');
}

/**
 * Checks the wiki without changing it: links, orphans, front matter, staleness, the index, and
 * source pages whose session was forgotten. Forgetting a session never rewrites the wiki; this
 * is where it shows up instead.
 */
export function lintWiki(wiki: WikiService, options: LintOptions): LintReport {
  const findings: LintFinding[] = [];
  const add: AddFinding = (category, path, message) => findings.push({ category, path, message });

  const pages = loadPages(wiki, add);
  const slugs = new Set(pages.map((p) => p.slug));
  const inbound = checkLinks(wiki, pages, slugs, add);
  for (const p of pages) {
    if (!p.page) continue;
    const loaded = { ...p, page: p.page };
    if (p.section !== 'sources' && !inbound.get(p.slug)) add('orphan_page', p.rel, 'no other page links to it');
    checkFrontMatter(loaded, options.now, add);
    checkSourceSession(loaded, options, add);
  }
  checkIndex(wiki, pages, slugs, add);
  if (options.mentions) findings.push(...mentionFindings(wiki, options.mentions));
  findings.sort(byCategoryPathLine);
  return { generatedAt: options.now, issues: findings.length, findings };
}

const byCategoryPathLine = (a: LintFinding, b: LintFinding) =>
  LINT_CATEGORIES.indexOf(a.category) - LINT_CATEGORIES.indexOf(b.category) ||
  compareCodeUnits(a.path, b.path) ||
  (a.line ?? 0) - (b.line ?? 0);

/** LINT.md: front matter, one section per category, `- (none)` for an empty one. */
export function renderLintReport(report: LintReport): string {
  const lines = ['# Wiki Lint Report', ''];
  for (const category of LINT_CATEGORIES) {
    const items = report.findings.filter((f) => f.category === category);
    lines.push(`## ${LABELS[category]} (${items.length})`, '');
    if (items.length === 0) lines.push('- (none)');
    for (const f of items) lines.push(`- \`${f.path}${f.line ? `:${f.line}` : ''}\`: ${f.message}`);
    lines.push('');
  }
  const generated = new Date(report.generatedAt).toISOString().slice(0, 10) + ' UTC';
  return renderPage({ generated, issues: report.issues }, lines.join('\n'));
}
