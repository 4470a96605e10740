import { extractSync } from '../../src/main/memory/extraction/rule-extractor';
import type { TranscriptEntry } from '../../src/main/memory/extraction/types';
import { validateCandidates } from '../../src/main/memory/extraction/validate';
import type { SessionScopes } from '../../src/main/memory/scope';
import { labelledSnippets, type LabelledSnippet } from '../fixtures/extraction-labelled';

export const entriesOf = (messages: LabelledSnippet['messages']): TranscriptEntry[] =>
  messages.map((m, i) => ({ messageId: `m${i + 1}`, seq: i + 1, role: m.role, text: m.content }));

/** A Coding session's scopes: project and session writable, user-wide allowed. */
const codingScopes = {
  writable: { user: '', project: 'labelled-project', session: 'labelled-session' },
} as unknown as SessionScopes;

export interface StoredFact {
  kind: string;
  scope: string;
  text: string;
}

/** What would be stored for one snippet: the built-in extractor, then the same validation as a run. */
export function storedFor(snippet: LabelledSnippet): StoredFact[] {
  const entries = entriesOf(snippet.messages);
  const roles = new Map(entries.map((e) => [e.messageId, e.role]));
  const { accepted } = validateCandidates(extractSync({ entries }), codingScopes, {
    roleOf: (id) => (id ? roles.get(id) : undefined),
  });
  return accepted.map((a) => ({ kind: a.kind, scope: a.target.scope, text: a.text }));
}

export interface LabelledScore {
  snippets: number;
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  /** Facts stored at user scope that the labels say must stay local (or are not facts at all). */
  userScopeJunk: number;
  misses: string[];
}

const matches = (e: LabelledSnippet['expected'][number], f: StoredFact) =>
  e.kind === f.kind &&
  f.text.toLowerCase().includes(e.includes) &&
  (e.scope === undefined || (e.scope === 'user') === (f.scope === 'user'));

/**
 * Precision and recall over the labelled set: a stored fact is right when an expected fact of the
 * snippet has its kind, is contained in its text and (where labelled) sits at the right scope.
 */
export function scoreLabelled(snippets: LabelledSnippet[] = labelledSnippets): LabelledScore {
  const score: LabelledScore = {
    snippets: snippets.length,
    tp: 0,
    fp: 0,
    fn: 0,
    precision: 0,
    recall: 0,
    userScopeJunk: 0,
    misses: [],
  };
  for (const s of snippets) {
    const used = new Set<number>();
    for (const f of storedFor(s)) {
      const i = s.expected.findIndex((e, j) => !used.has(j) && matches(e, f));
      if (i >= 0) {
        used.add(i);
        score.tp++;
        continue;
      }
      score.fp++;
      if (f.scope === 'user') score.userScopeJunk++;
      score.misses.push(`false positive in ${s.id}: ${f.kind}@${f.scope} "${f.text}"`);
    }
    s.expected.forEach((e, j) => {
      if (used.has(j)) return;
      score.fn++;
      score.misses.push(`missed in ${s.id}: ${e.kind}${e.scope ? '@' + e.scope : ''} "${e.includes}"`);
    });
  }
  score.precision = score.tp / Math.max(1, score.tp + score.fp);
  score.recall = score.tp / Math.max(1, score.tp + score.fn);
  return score;
}

export const formatLabelled = (name: string, s: LabelledScore): string =>
  `${name}: ${s.snippets} snippets, precision ${s.precision.toFixed(3)}, recall ${s.recall.toFixed(3)} ` +
  `(tp ${s.tp}, fp ${s.fp}, fn ${s.fn}; user-scope junk ${s.userScopeJunk})`;
