import type { FactRow } from '../store/facts';
import { createPrivateDir } from '../private-fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { Db } from '../store/db';
import type { Scope } from '../../shared/domain';
import { FACT_KINDS, SCOPES } from '../../shared/domain';
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

type Row = Pick<
  FactRow,
  'seq' | 'id' | 'scope' | 'scope_key' | 'kind' | 'text' | 'confidence' | 'reinforcement' | 'updated_at'
>;

interface EvidenceRow {
  session_id: string;
  title: string | null;
  seq: number | null;
}

const EVIDENCE_PER_FACT = 5;

const pageName = (scope: Scope, key: string) =>
  scope === 'user'
    ? 'user.md'
    : `${scope}-${slugify(scope === 'workspace' ? path.basename(key) : key, scope, 40)}-${createHash('sha256').update(key).digest('hex').slice(0, 6)}.md`;

/** One line of exported text, with any secret replaced by `[redacted <kind>]`. */
const line = (s: string) => redactSecrets(s.replace(/\s+/g, ' ').trim()).text;

/**
 * Writes every semantic fact as Markdown, one page per scope (user, each project, workspace,
 * folder and session), with each fact's kind, confidence, reinforcement and citations, plus an
 * INDEX.md. This is a read-only view of the store: nothing reads it back, and recall never
 * depends on it. Each page is replaced atomically.
 */
export async function exportFacts(db: Db, dir: string, now: number): Promise<ExportResult> {
  createPrivateDir(dir);
  const today = new Date(now).toISOString().slice(0, 10);
  const keys = db
    .prepare(
      `SELECT s.id AS scope_id, s.scope, s.scope_key, count(*) AS n
       FROM memory_facts f JOIN memory_scopes s ON s.id = f.scope_id GROUP BY s.id
       ORDER BY CASE s.scope ${SCOPES.map((s, i) => `WHEN '${s}' THEN ${i}`).join(' ')} END, s.scope_key`,
    )
    .all() as { scope_id: number; scope: Scope; scope_key: string; n: number }[];
  const factsOf = db.prepare(
    `SELECT seq, id, scope, scope_key, kind, text, confidence, reinforcement, updated_at FROM memory_facts
     WHERE scope_id = ? ORDER BY reinforcement DESC, updated_at DESC, id`,
  );
  const evidenceOf = db.prepare(
    `SELECT e.session_id, s.title, m.seq FROM memory_fact_evidence e JOIN sessions s ON s.id = e.session_id
     LEFT JOIN session_messages m ON m.id = e.message_id WHERE e.fact_seq = ? ORDER BY e.created_at, e.session_id LIMIT ?`,
  );
  const pages: ExportedPage[] = [];
  let total = 0;
  for (const k of keys) {
    const rows = factsOf.all(k.scope_id) as Row[];
    const title = k.scope === 'user' ? 'User-wide facts' : `${k.scope} ${k.scope_key}`;
    const body: string[] = [`# ${line(title)}`, ''];
    for (const kind of FACT_KINDS) {
      const group = rows.filter((r) => r.kind === kind);
      if (!group.length) continue;
      body.push(`## ${kind} (${group.length})`, '');
      for (const f of group) {
        body.push(
          `- ${line(f.text)} _(${f.confidence} · reinforced by ${f.reinforcement} session${f.reinforcement === 1 ? '' : 's'})_`,
        );
        for (const e of evidenceOf.all(f.seq, EVIDENCE_PER_FACT) as EvidenceRow[]) {
          body.push(
            `  - session \`${e.session_id}\`${e.title ? ` "${line(e.title)}"` : ''}${e.seq !== null ? `, message #${e.seq}` : ''}`,
          );
        }
      }
      body.push('');
    }
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
      body.join('\n'),
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
