import { factExportQueries, type ExportFactRow } from '../store/fact-export';
import { createPrivateDir } from '../private-fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { Db } from '../store/db';
import type { Scope } from '../../shared/domain';
import { FACT_KINDS } from '../../shared/domain';
import { writeFileAtomically } from './atomic';
import { renderPage } from './front-matter';
import { slugify } from './links';
import { redactSecrets } from '../memory/secrets';

export interface ExportedPage {
  file: string;
  scope: Scope;
  scopeKey: string;
  facts: number;
}

export interface ExportResult {
  dir: string;
  facts: number;
  pages: ExportedPage[];
}

const EVIDENCE_PER_FACT = 5;

const pageName = (scope: Scope, key: string) =>
  scope === 'user'
    ? 'user.md'
    : `${scope}-${slugify(scope === 'workspace' ? path.basename(key) : key, scope, 40)}-${createHash('sha256').update(key).digest('hex').slice(0, 6)}.md`;

/** One line of exported text, with any secret replaced by `[redacted <kind>]`. */
const line = (s: string) => redactSecrets(s.replace(/\s+/g, ' ').trim()).text;

type FactExportQueries = ReturnType<typeof factExportQueries>;

/** A scope's facts grouped by kind, each with the sessions (and messages) it cites. */
function scopePageBody(q: FactExportQueries, title: string, rows: ExportFactRow[]): string {
  const body: string[] = [`# ${line(title)}`, ''];
  for (const kind of FACT_KINDS) {
    const group = rows.filter((r) => r.kind === kind);
    if (!group.length) continue;
    body.push(`## ${kind} (${group.length})`, '');
    for (const f of group) {
      body.push(
        `- ${line(f.text)} _(${f.confidence} · reinforced by ${f.reinforcement} session${f.reinforcement === 1 ? '' : 's'})_`,
      );
      for (const e of q.citations(f.seq, EVIDENCE_PER_FACT)) {
        body.push(
          `  - session \`${e.session_id}\`${e.title ? ` "${line(e.title)}"` : ''}${e.seq !== null ? `, message #${e.seq}` : ''}`,
        );
      }
    }
    body.push('');
  }
  return body.join('\n');
}

/**
 * Writes every semantic fact as Markdown, one page per scope (user, each project, workspace,
 * folder and session), with each fact's kind, confidence, reinforcement and citations, plus an
 * INDEX.md. This is a read-only view of the store: nothing reads it back, and recall never
 * depends on it. Each page is replaced atomically.
 */
export async function exportFacts(db: Db, dir: string, now: number): Promise<ExportResult> {
  createPrivateDir(dir);
  const today = new Date(now).toISOString().slice(0, 10);
  const q = factExportQueries(db);
  const pages: ExportedPage[] = [];
  let total = 0;
  for (const k of q.scopesWithFacts()) {
    const rows = q.factsInScope(k.scope_id);
    const title = k.scope === 'user' ? 'User-wide facts' : `${k.scope} ${k.scope_key}`;
    const file = pageName(k.scope, k.scope_key);
    const content = renderPage(
      {
        description: `${rows.length} semantic facts at ${k.scope} scope${k.scope_key ? ` ${line(k.scope_key)}` : ''}`,
        tags: [k.scope, 'export'],
        updated: today,
        scope: k.scope,
        scope_key: k.scope_key,
        facts: rows.length,
      },
      scopePageBody(q, title, rows),
    );
    await writeFileAtomically(path.join(dir, file), content);
    pages.push({ file, scope: k.scope, scopeKey: k.scope_key, facts: rows.length });
    total += rows.length;
  }
  const index = [
    '# Exported facts',
    '',
    `Exported ${today} UTC: ${total} facts in ${pages.length} scopes. The store is the source of truth; this is a snapshot.`,
    '',
    ...pages.map((p) => `- [${p.scope}${p.scopeKey ? ` ${line(p.scopeKey)}` : ''}](${p.file}) — ${p.facts} facts`),
    '',
  ].join('\n');
  await writeFileAtomically(path.join(dir, 'INDEX.md'), index);
  return { dir, facts: total, pages };
}
