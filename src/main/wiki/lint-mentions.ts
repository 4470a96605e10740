import { ROOT_FILES, SECTIONS } from './layout';
import type { WikiService } from './service';

/**
 * Lines that still mention a forgotten session or fact. Forget removes what the program wrote;
 * what a person wrote (and what a model consolidator or an older version wrote without Dream's
 * anchors) is never rewritten, so lint finds it by the references the program writes: links to a
 * session's source page (`[[session-…]]`), `fact:<id>` anchors and `session:<id>` labels, and
 * ids written after the word "session" or "fact". Without a copy of what was forgotten (there is
 * none), a fact's text cannot be found again: the forget preview lists those lines instead.
 */
export interface MentionChecks {
  /** The stem `session-…` names an existing session's source page. */
  stemExists(stem: string): boolean;
  sessionExists(id: string): boolean;
  factExists(id: string): boolean;
}

export interface MentionFinding {
  path: string;
  line: number;
  message: string;
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/**
 * A source page's name, as Dream gives it (dream/source-page.ts): `session-<id tail>-<8 or 64 hex>`,
 * or from older versions `session-<8 or 16 hex>`. Plain words such as "session-based" never match.
 */
const STEM = /\bsession-(?:[0-9a-f]{16}|[0-9a-f]{8}|[a-z0-9][a-z0-9_.-]*-[0-9a-f]{8}(?:[0-9a-f]{56})?)(?![a-z0-9_-])/gi;
const SESSION_ID = new RegExp(`\\bsession(?:[ _]?id)?["']?\\s*[:= ]\\s*["']?(${UUID})`, 'gi');
const FACT_ID = new RegExp(`\\bfact(?:[ _]?id)?["']?\\s*[:= ]\\s*["']?(${UUID})`, 'gi');
/** Regenerated from what exists; they never carry a stale reference for long. */
const SKIPPED = new Set(['LINT.md', 'INDEX.md']);
export const FORGOTTEN_SCOPE_MARKER = 'session:forgotten';

function lineFindings(text: string, c: MentionChecks): string[] {
  const out: string[] = [];
  if ([...text.matchAll(STEM)].some((m) => !c.stemExists(m[0].toLowerCase()))) {
    out.push('links the source page of a session that no longer exists');
  }
  if ([...text.matchAll(SESSION_ID)].some((m) => !c.sessionExists(m[1]!))) {
    out.push('names a session that no longer exists');
  }
  if ([...text.matchAll(FACT_ID)].some((m) => !c.factExists(m[1]!))) {
    out.push('cites a fact that no longer exists');
  }
  if (text.includes(FORGOTTEN_SCOPE_MARKER)) {
    out.push(
      `held a forgotten session's content: the page stays out of memory_search until you remove "${FORGOTTEN_SCOPE_MARKER}" from its scopes`,
    );
  }
  return out;
}

export function forgottenMentions(wiki: WikiService, checks: MentionChecks): MentionFinding[] {
  const findings: MentionFinding[] = [];
  const pages = [...ROOT_FILES, ...SECTIONS.flatMap((s) => wiki.listSection(s).map((n) => `${s}/${n}`))];
  for (const rel of pages) {
    if (SKIPPED.has(rel)) continue;
    let content: string;
    try {
      content = wiki.tryRead(rel)?.content ?? '';
    } catch {
      continue;
    }
    content.split('\n').forEach((text, i) => {
      for (const message of lineFindings(text, checks)) findings.push({ path: rel, line: i + 1, message });
    });
  }
  return findings;
}

/** The findings as lint reports them: category forgotten_mention, with page and line. */
export const mentionFindings = (wiki: WikiService, checks: MentionChecks) =>
  forgottenMentions(wiki, checks).map((m) => ({
    category: 'forgotten_mention' as const,
    path: m.path,
    line: m.line,
    message: `line ${m.line} ${m.message}`,
  }));
