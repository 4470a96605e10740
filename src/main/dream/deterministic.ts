import { dialogueLabel, scopeLabel as scopeRefLabel, SCOPES_KEY } from '../wiki/page-scopes';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { Db } from '../store/db';
import { getSession } from '../store/sessions';
import { teamFacts, type TeamFactRow } from '../store/team-facts';
import type { WikiService } from '../wiki/service';
import type { Confidence, FactKind, Scope } from '../../shared/domain';
import { CONFIDENCE_RANK } from '../../shared/domain';
import { sessionSourcePage, sourceSlugOf } from './source-page';
import { slugify } from '../wiki/links';
import { redactSecrets } from '../memory/secrets';
import { PageCatalog } from './catalog';
import { PageSet, type EditablePage } from './page-edit';
import { noteSlug, type BatchOutcome, type Consolidator, type ItemOutcome, type WorkItem } from './work';

type SessionFact = TeamFactRow;

const PLURAL: Record<FactKind, string> = {
  preference: 'preferences',
  profile: 'profile',
  decision: 'decisions',
  convention: 'conventions',
  constraint: 'constraints',
  fact: 'facts',
};

const TITLE: Record<FactKind, string> = {
  preference: 'Preferences',
  profile: 'Profile',
  decision: 'Decisions',
  convention: 'Conventions',
  constraint: 'Constraints',
  fact: 'Facts',
};

/**
 * Source text is data: collapse it to one line, hide secrets (`[redacted <kind>]`) and defuse
 * link, comment and HTML syntax.
 */
export const inert = (text: string, max = 500) =>
  redactSecrets(text.replace(/\s+/g, ' ').trim())
    .text.slice(0, max)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\[\[/g, '[\\[')
    .replace(/\]\]/g, ']\\]');

/** Where a cited message was said: the lead's own transcript, or one of its team's. */
const VIA: Record<NonNullable<SessionFact['via']> | 'lead', string> = {
  lead: '',
  'team-member': ' of a team member',
  'side-chat': ' of a side chat',
};

const short = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 6);

const scopeLabel = (scope: Scope, key: string) => (scope === 'user' ? 'user' : `${scope} ${key}`);

/** Dream's fallback page for facts of one scope and kind that match no existing page. */
function groupPage(f: SessionFact): { rel: string; title: string; group: string } | null {
  const kind = PLURAL[f.kind];
  switch (f.scope) {
    case 'user':
      return { rel: `topics/user-${kind}.md`, title: `${TITLE[f.kind]} (user)`, group: `user/${f.kind}` };
    case 'project':
      return {
        rel: `topics/project-${slugify(f.scope_key, 'project', 30)}-${short(f.scope_key)}-${kind}.md`,
        title: `${TITLE[f.kind]}: project ${f.scope_key}`,
        group: `project:${f.scope_key}/${f.kind}`,
      };
    case 'workspace':
      return {
        rel: `topics/workspace-${slugify(path.basename(f.scope_key), 'workspace', 30)}-${short(f.scope_key)}-${kind}.md`,
        title: `${TITLE[f.kind]}: workspace ${f.scope_key}`,
        group: `workspace:${f.scope_key}/${f.kind}`,
      };
    case 'folder':
      return {
        rel: `topics/folder-${slugify(f.scope_key, 'folder', 30)}-${short(f.scope_key)}-${kind}.md`,
        title: `${TITLE[f.kind]}: folder ${f.scope_key}`,
        group: `folder:${f.scope_key}/${f.kind}`,
      };
    case 'session':
      // Session facts are private to their session: they stay on its source page unless they
      // clearly belong to a page that already exists.
      return null;
  }
}

const CITE = /\[\[((?:session|note)-[a-z0-9-]+)\]\]/g;
const MAX_CITES = 8;

function citations(existing: string | null, add: string): string[] {
  const found = existing ? [...existing.matchAll(CITE)].map((m) => m[1]!) : [];
  const all = [...found.filter((c) => c !== add), add];
  return all.slice(-MAX_CITES);
}

const slugOf = (rel: string) => rel.slice(rel.indexOf('/') + 1, -3);

/**
 * The built-in consolidator: no model, no network, same output for the same input. For each
 * session it rewrites its source page (sessionSourcePage) with the session's facts and the message each
 * cites, then merges each fact into the best-matching existing topic or entity page, or else into
 * a per-scope group page (created once, merged into ever after). Notes get a source page and
 * their lines are merged into matching pages. One batch is edited in memory and written once,
 * under the wiki lock; each page write is atomic.
 */
export class DeterministicConsolidator implements Consolidator {
  readonly name = 'deterministic';

  constructor(
    private readonly db: Db,
    private readonly wiki: WikiService,
  ) {}

  async consolidate(items: WorkItem[], today: string): Promise<BatchOutcome> {
    return this.wiki.withWriteLock(async () => {
      const pages = new PageSet(this.wiki);
      const catalog = PageCatalog.load(this.wiki);
      const outcomes: ItemOutcome[] = [];
      for (const item of items) {
        const snap = pages.snapshot();
        try {
          const topics =
            item.kind === 'session'
              ? this.session(item, pages, catalog, today)
              : this.note(item, pages, catalog, today);
          outcomes.push({ ok: true, topics });
        } catch (e) {
          pages.restore(snap);
          outcomes.push({ ok: false, error: (e as Error).message, topics: [] });
        }
      }
      const pagesWritten = await pages.flush();
      return { outcomes, pagesWritten };
    });
  }

  private touchKnowledgePage(
    page: EditablePage,
    today: string,
    source: string,
    defaults: Record<string, unknown>,
  ): void {
    if (!page.existed && page.isEmpty) page.setBody(`# ${String(defaults.title)}\n\n## Facts\n`);
    page.setDefault('description', defaults.description);
    page.setDefault('tags', defaults.tags);
    page.set('updated', today);
    page.setDefault('confidence', 'medium');
    page.addToList('sources', [source]);
    page.setDefault('related', []);
    if (defaults.group) page.setDefault('dream_group', defaults.group);
  }

  /** Merges one fact into its matching or group page; the page's path, or null when none fits. */
  private placeFact(f: SessionFact, pages: PageSet, catalog: PageCatalog, today: string, source: string) {
    const matched = catalog.match(f.text);
    const group = matched ? null : groupPage(f);
    const rel = matched ?? group?.rel;
    if (!rel) return null;
    const page = pages.get(rel);
    this.touchKnowledgePage(page, today, source, {
      title: group?.title ?? slugOf(rel),
      description: group
        ? `${group.title}, consolidated by Dream from session evidence.`
        : `${slugOf(rel)} (consolidated by Dream).`,
      tags: group ? [f.kind, f.scope] : [],
      group: group?.group,
    });
    // Never capped: a dropped scope would let a page leak into another scope's search.
    page.addToList(SCOPES_KEY, [scopeRefLabel(f.scope, f.scope_key)], Number.MAX_SAFE_INTEGER);
    const anchor = `fact:${f.id}`;
    const cites = citations(page.bullet(anchor), source)
      .map((c) => `[[${c}]]`)
      .join(' ');
    const support = `${f.reinforcement} session${f.reinforcement === 1 ? '' : 's'}`;
    page.upsertBullet(
      anchor,
      `${inert(f.text)} _(${f.kind} · ${f.confidence} · ${inert(scopeLabel(f.scope, f.scope_key), 120)} · ${support})_ — ${cites}`,
    );
    const pageConfidence = (page.data.confidence as Confidence) ?? 'medium';
    if (CONFIDENCE_RANK[f.confidence] > CONFIDENCE_RANK[pageConfidence] && page.data.dream_group) {
      page.set('confidence', f.confidence);
    }
    return rel;
  }

  private session(
    item: Extract<WorkItem, { kind: 'session' }>,
    pages: PageSet,
    catalog: PageCatalog,
    today: string,
  ): string[] {
    const { session } = item;
    // Forgotten since it was admitted (its clean-up waits for this lock): write nothing for it.
    if (!getSession(this.db, session.id)) return [];
    const sourceRel = sessionSourcePage(
      { exists: (rel) => pages.has(rel), sessionOf: (rel) => pages.get(rel).data.session },
      session.id,
    );
    const source = sourceSlugOf(sourceRel);
    const facts = teamFacts(this.db, session.id);
    const placed = facts.map((f) => this.placeFact(f, pages, catalog, today, source)).filter((r) => r !== null);
    const related = [...new Set(placed.map(slugOf))].sort();

    const title = session.title ? inert(session.title, 120) : null;
    const page = pages.get(sourceRel);
    page.setBody(sessionPageBody(item, source, title, facts, related));
    page.set(
      'description',
      title
        ? `Session "${title}" (${facts.length} facts)`
        : `Session ${source.slice('session-'.length)} (${facts.length} facts)`,
    );
    page.set('tags', ['session', ...new Set(facts.map((f) => f.scope))]);
    page.set('updated', today);
    page.set('confidence', bestConfidence(facts) ?? 'low');
    page.set('sources', [source]);
    page.set('related', related);
    page.set('session', session.id);
    // The page quotes the session's dialogue and lists its facts: it is visible where both are.
    page.set(SCOPES_KEY, [
      ...new Set([dialogueLabel(session), ...facts.map((f) => scopeRefLabel(f.scope, f.scope_key))]),
    ]);
    return topicsOf(placed);
  }

  private note(
    item: Extract<WorkItem, { kind: 'note' }>,
    pages: PageSet,
    catalog: PageCatalog,
    today: string,
  ): string[] {
    const { note } = item;
    const source = noteSlug(note.name);
    const entries = noteEntries(note.content);
    const placed: string[] = [];
    for (const line of entries.flatMap((e) => e.lines)) {
      const rel = catalog.match(line);
      if (!rel) continue;
      const page = pages.get(rel);
      this.touchKnowledgePage(page, today, source, {
        title: slugOf(rel),
        description: `${slugOf(rel)} (consolidated by Dream).`,
        tags: [],
      });
      // Hashed after redaction: a hash of the raw line would let a short secret (a PIN) be guessed back.
      const anchor = `note:${source}:${createHash('sha256').update(redactSecrets(line).text).digest('hex').slice(0, 12)}`;
      page.upsertBullet(anchor, `${inert(line)} _(from note ${inert(note.name, 60)})_ — [[${source}]]`);
      placed.push(rel);
    }
    const related = [...new Set(placed.map(slugOf))].sort();
    const page = pages.get(`sources/${source}.md`);
    page.setBody(notePageBody(note.name, entries, related));
    page.set('description', `Daily note ${note.name} (${entries.length} entries)`);
    page.set('tags', ['note']);
    page.set('updated', today);
    page.set('confidence', 'medium');
    page.set('sources', [source]);
    page.set('related', related);
    return topicsOf(placed);
  }
}

const topicsOf = (rels: string[]) => [...new Set(rels.filter((r) => r.startsWith('topics/')).map(slugOf))].sort();

const relatedLines = (related: string[]) => (related.length ? related.map((s) => `- [[${s}]]`) : ['- (none)']);

const bestConfidence = (facts: SessionFact[]) =>
  facts.reduce<Confidence | null>(
    (acc, f) => (!acc || CONFIDENCE_RANK[f.confidence] > CONFIDENCE_RANK[acc] ? f.confidence : acc),
    null,
  );

/** A session's source page: what the session was, the facts it is evidence for, where they went. */
function sessionPageBody(
  { session, transcript }: Extract<WorkItem, { kind: 'session' }>,
  source: string,
  title: string | null,
  facts: SessionFact[],
  related: string[],
): string {
  const context = [
    session.projectId && `project ${inert(session.projectId, 120)}`,
    session.workspace && `workspace ${inert(session.workspace, 300)}`,
    session.folderId && `folder ${inert(session.folderId, 120)}`,
  ].filter(Boolean);
  const factLine = (f: SessionFact) =>
    `- ${inert(f.text)} _(${f.kind} · ${f.confidence} · ${inert(scopeLabel(f.scope, f.scope_key), 120)})_` +
    (f.message_seq !== null ? ` — message #${f.message_seq}${VIA[f.via ?? 'lead']}` : '') +
    ` <!-- fact:${f.id} -->`;
  return [
    `# Session ${source.slice('session-'.length)}${title ? `: ${title}` : ''}`,
    '',
    `- Date: ${new Date(session.createdAt).toISOString().slice(0, 10)}`,
    `- Agent: ${session.agentName ? inert(session.agentName, 100) : 'unknown'}`,
    `- Messages: ${transcript.messageCount}`,
    ...(context.length ? [`- Context: ${context.join(', ')}`] : []),
    ...(transcript.firstUserLine
      ? [`- Opening request (quoted source text): "${inert(transcript.firstUserLine, 200)}"`]
      : []),
    '',
    `## Facts (${facts.length})`,
    '',
    ...(facts.length ? facts.map(factLine) : ['- (no durable facts recorded for this session yet)']),
    '',
    `## Related (${related.length})`,
    '',
    ...relatedLines(related),
    '',
  ].join('\n');
}

interface NoteEntry {
  heading: string;
  lines: string[];
}

/** A daily note split at its `## ` headings, list markers stripped, sub-headings dropped. */
function noteEntries(content: string): NoteEntry[] {
  const entries: NoteEntry[] = [];
  let current: NoteEntry = { heading: '', lines: [] };
  for (const raw of content.split('\n')) {
    const h = /^##\s+(.*)$/.exec(raw);
    if (h) {
      if (current.heading || current.lines.length) entries.push(current);
      current = { heading: h[1]!.trim(), lines: [] };
      continue;
    }
    const line = raw.replace(/^\s*(?:[-*+]|\d+\.)\s+/, '').trim();
    if (line && !/^#/.test(line)) current.lines.push(line);
  }
  if (current.heading || current.lines.length) entries.push(current);
  return entries;
}

function notePageBody(name: string, entries: NoteEntry[], related: string[]): string {
  return [
    `# Note ${inert(name, 60)}`,
    '',
    `- Note file: \`notes/${name}\``,
    `- Entries: ${entries.length}`,
    '',
    '## Entries (quoted source text)',
    '',
    ...(entries.length
      ? entries.flatMap((e) => [
          `### ${inert(e.heading || '(untitled)', 80)}`,
          '',
          ...e.lines.slice(0, 50).map((l) => `> ${inert(l, 300)}`),
          '',
        ])
      : ['- (empty note)', '']),
    `## Related (${related.length})`,
    '',
    ...relatedLines(related),
    '',
  ].join('\n');
}
