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

/** What one line refers to: source page stems (lower-cased), session and fact ids, the marker. */
interface LineReferences {
  line: number;
  stems: string[];
  sessionIds: string[];
  factIds: string[];
  forgottenScope: boolean;
}

/** The lines of a page that refer to anything lint checks, with what each refers to. */
function pageReferences(content: string): LineReferences[] {
  const out: LineReferences[] = [];
  content.split('\n').forEach((text, i) => {
    const refs = {
      line: i + 1,
      stems: [...text.matchAll(STEM)].map((m) => m[0].toLowerCase()),
      sessionIds: [...text.matchAll(SESSION_ID)].map((m) => m[1]!),
      factIds: [...text.matchAll(FACT_ID)].map((m) => m[1]!),
      forgottenScope: text.includes(FORGOTTEN_SCOPE_MARKER),
    };
    if (refs.stems.length || refs.sessionIds.length || refs.factIds.length || refs.forgottenScope) out.push(refs);
  });
  return out;
}

function lineFindings(refs: LineReferences, c: MentionChecks): string[] {
  const out: string[] = [];
  if (refs.stems.some((stem) => !c.stemExists(stem))) {
    out.push('links the source page of a session that no longer exists');
  }
  if (refs.sessionIds.some((id) => !c.sessionExists(id))) out.push('names a session that no longer exists');
  if (refs.factIds.some((id) => !c.factExists(id))) out.push('cites a fact that no longer exists');
  if (refs.forgottenScope) {
    out.push(
      `held a forgotten session's content: the page stays out of memory_search until you remove "${FORGOTTEN_SCOPE_MARKER}" from its scopes`,
    );
  }
  return out;
}

/** Each answer of `check` kept for one pass: a page cites the same few sessions on many lines. */
function memoized(check: (id: string) => boolean): (id: string) => boolean {
  const known = new Map<string, boolean>();
  return (id) => {
    let exists = known.get(id);
    if (exists === undefined) known.set(id, (exists = check(id)));
    return exists;
  };
}

/**
 * Every line that mentions what no longer exists. A page's references are read from its text
 * again only when it changed since the last pass; which of them still exist is asked every pass.
 */
export function forgottenMentions(wiki: WikiService, checks: MentionChecks): MentionFinding[] {
  const c: MentionChecks = {
    stemExists: memoized(checks.stemExists),
    sessionExists: memoized(checks.sessionExists),
    factExists: memoized(checks.factExists),
  };
  const findings: MentionFinding[] = [];
  const pages = [...ROOT_FILES, ...SECTIONS.flatMap((s) => wiki.listSection(s).map((n) => `${s}/${n}`))];
  for (const rel of pages) {
    if (SKIPPED.has(rel)) continue;
    let lines: LineReferences[];
    try {
      lines = wiki.derived(rel, 'mentions', pageReferences) ?? [];
    } catch {
      continue;
    }
    for (const refs of lines) {
      for (const message of lineFindings(refs, c)) findings.push({ path: rel, line: refs.line, message });
    }
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
