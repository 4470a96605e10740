import { dialogueLabel, scopeLabel as scopeRefLabel, SCOPES_KEY } from '../wiki/page-scopes';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { Db } from '../store/db';
import { getSession } from '../store/sessions';
import type { WikiService } from '../wiki/service';
import type { Confidence, FactKind, Scope } from '../../shared/domain';
import { CONFIDENCE_RANK } from '../../shared/domain';
import { sessionSourcePage, sourceSlugOf } from './source-page';
import { slugify } from '../wiki/links';
import { redactSecrets } from '../memory/secrets';
import { PageCatalog } from './catalog';
import { PageSet, type EditablePage } from './page-edit';
import { noteSlug, type BatchOutcome, type Consolidator, type ItemOutcome, type WorkItem } from './work';

interface SessionFact {
  id: string;
  text: string;
  kind: FactKind;
  scope: Scope;
  scope_key: string;
  confidence: Confidence;
  reinforcement: number;
  message_seq: number | null;
  /** The team member or side chat whose message is the evidence; null for the lead's own. */
  via: 'team-member' | 'side-chat' | null;
}

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

  /**
   * The facts of a lead's whole team: its own evidence, and its team members' and side chats'
   * (which count as the lead's team context), each fact once, the lead's own evidence first.
   */
  private facts(sessionId: string): SessionFact[] {
    const rows = this.db
      .prepare(
        `WITH RECURSIVE team(id, depth) AS (
           SELECT ?, 0 UNION SELECT s.id, team.depth + 1 FROM sessions s JOIN team ON s.parent_session_id = team.id)
         SELECT f.id, f.text, f.kind, f.scope, f.scope_key, f.confidence, f.reinforcement, m.seq AS message_seq,
                CASE WHEN team.depth = 0 THEN NULL ELSE s.kind END AS via
         FROM team JOIN memory_fact_evidence e ON e.session_id = team.id
         JOIN memory_facts f ON f.seq = e.fact_seq
         JOIN sessions s ON s.id = e.session_id
         LEFT JOIN session_messages m ON m.id = e.message_id
         ORDER BY f.first_seen_at, f.id, team.depth, e.created_at`,
      )
      .all(sessionId) as SessionFact[];
    return rows.filter((r, i) => i === 0 || rows[i - 1]!.id !== r.id);
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

  private session(
    item: Extract<WorkItem, { kind: 'session' }>,
    pages: PageSet,
    catalog: PageCatalog,
    today: string,
  ): string[] {
    const { session, transcript } = item;
    // Forgotten since it was admitted (its clean-up waits for this lock): write nothing for it.
    if (!getSession(this.db, session.id)) return [];
    const sourceRel = sessionSourcePage(
      { exists: (rel) => pages.has(rel), sessionOf: (rel) => pages.get(rel).data.session },
      session.id,
    );
    const source = sourceSlugOf(sourceRel);
    const facts = this.facts(session.id);
    const related = new Set<string>();
    const topics = new Set<string>();

    for (const f of facts) {
      let rel = catalog.match(f.text);
      const group = rel ? null : groupPage(f);
      if (!rel && group) rel = group.rel;
      if (!rel) continue;
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
      if (
        CONFIDENCE_RANK[f.confidence] > CONFIDENCE_RANK[(page.data.confidence as Confidence) ?? 'medium'] &&
        page.data.dream_group
      ) {
        page.set('confidence', f.confidence);
      }
      related.add(slugOf(rel));
      if (rel.startsWith('topics/')) topics.add(slugOf(rel));
    }

    const best = facts.reduce<Confidence | null>(
      (acc, f) => (!acc || CONFIDENCE_RANK[f.confidence] > CONFIDENCE_RANK[acc] ? f.confidence : acc),
      null,
    );
    const title = session.title ? inert(session.title, 120) : null;
    const context = [
      session.projectId && `project ${inert(session.projectId, 120)}`,
      session.workspace && `workspace ${inert(session.workspace, 300)}`,
      session.folderId && `folder ${inert(session.folderId, 120)}`,
    ].filter(Boolean);
    const body = [
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
      ...(facts.length
        ? facts.map(
            (f) =>
              `- ${inert(f.text)} _(${f.kind} · ${f.confidence} · ${inert(scopeLabel(f.scope, f.scope_key), 120)})_` +
              (f.message_seq !== null ? ` — message #${f.message_seq}${VIA[f.via ?? 'lead']}` : '') +
              ` <!-- fact:${f.id} -->`,
          )
        : ['- (no durable facts recorded for this session yet)']),
      '',
      `## Related (${related.size})`,
      '',
      ...(related.size ? [...related].sort().map((s) => `- [[${s}]]`) : ['- (none)']),
      '',
    ].join('\n');
    const page = pages.get(sourceRel);
    page.setBody(body);
    page.set(
      'description',
      title
        ? `Session "${title}" (${facts.length} facts)`
        : `Session ${source.slice('session-'.length)} (${facts.length} facts)`,
    );
    page.set('tags', ['session', ...new Set(facts.map((f) => f.scope))]);
    page.set('updated', today);
    page.set('confidence', best ?? 'low');
    page.set('sources', [source]);
    page.set('related', [...related].sort());
    page.set('session', session.id);
    // The page quotes the session's dialogue and lists its facts: it is visible where both are.
    page.set(SCOPES_KEY, [
      ...new Set([dialogueLabel(session), ...facts.map((f) => scopeRefLabel(f.scope, f.scope_key))]),
    ]);
    return [...topics].sort();
  }

  private note(
    item: Extract<WorkItem, { kind: 'note' }>,
    pages: PageSet,
    catalog: PageCatalog,
    today: string,
  ): string[] {
    const { note } = item;
    const source = noteSlug(note.name);
    const topics = new Set<string>();
    const related = new Set<string>();
    const entries: { heading: string; lines: string[] }[] = [];
    let current: { heading: string; lines: string[] } = { heading: '', lines: [] };
    for (const raw of note.content.split('\n')) {
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

    for (const entry of entries) {
      for (const line of entry.lines) {
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
        related.add(slugOf(rel));
        if (rel.startsWith('topics/')) topics.add(slugOf(rel));
      }
    }
    const body = [
      `# Note ${inert(note.name, 60)}`,
      '',
      `- Note file: \`notes/${note.name}\``,
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
      `## Related (${related.size})`,
      '',
      ...(related.size ? [...related].sort().map((s) => `- [[${s}]]`) : ['- (none)']),
      '',
    ].join('\n');
    const page = pages.get(`sources/${source}.md`);
    page.setBody(body);
    page.set('description', `Daily note ${note.name} (${entries.length} entries)`);
    page.set('tags', ['note']);
    page.set('updated', today);
    page.set('confidence', 'medium');
    page.set('sources', [source]);
    page.set('related', [...related].sort());
    return [...topics].sort();
  }
}
