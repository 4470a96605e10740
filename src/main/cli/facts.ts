import { wikiLines } from './forget-text';
import { fmtTime, table, type CliViews } from './framework';
import type { FactRecord, ForgetWikiReport } from '../../shared/schemas';

const coercionNote = (f: FactRecord) =>
  f.requestedScope ? ` (asked for ${f.requestedScope}: ${f.coercionReason})` : '';

const scopeLabel = (f: { scope: string; scopeKey: string }) => `${f.scope}${f.scopeKey ? ':' + f.scopeKey : ''}`;

const factTable = (page: { facts: FactRecord[]; nextCursor: string | null }) => {
  const rows = page.facts.map((f) => [f.id, scopeLabel(f), f.kind, f.confidence, String(f.reinforcement), f.text]);
  return page.facts.length
    ? table([['ID', 'SCOPE', 'KIND', 'CONF', 'REINF', 'TEXT'], ...rows]) +
        (page.nextCursor ? `\n(more: --cursor ${page.nextCursor})` : '')
    : 'no facts';
};

const forgotten = (r: {
  dryRun: boolean;
  fact: { id: string; scope: string; text: string };
  evidenceRemoved: number;
  wiki: ForgetWikiReport;
}) =>
  [
    `${r.dryRun ? 'would delete' : 'deleted'} ${r.fact.id} [${r.fact.scope}] ${r.fact.text} (${r.evidenceRemoved} evidence row(s))`,
    ...wikiLines(r.wiki, r.dryRun),
  ].join('\n');

export const factViews: CliViews = {
  'facts.list': { text: factTable },
  'memory.facts': { text: factTable },
  'facts.get': {
    text: (f) =>
      [
        `${f.id}`,
        `  text:          ${f.text}`,
        `  kind:          ${f.kind}`,
        `  scope:         ${scopeLabel(f)}${coercionNote(f)}`,
        `  confidence:    ${f.confidence}`,
        `  reinforcement: ${f.reinforcement}`,
        `  origin:        ${f.origin}`,
        `  first seen:    ${fmtTime(f.firstSeenAt)}   last seen: ${fmtTime(f.lastSeenAt)}`,
        `  evidence:`,
        ...f.evidence.map(
          (e) =>
            `    - session ${e.sessionId}${e.sessionTitle ? ` "${e.sessionTitle}"` : ''}` +
            (e.messageId ? ` message #${e.messageSeq} ${e.messageId}: ${e.messageExcerpt ?? ''}` : ' (no message)'),
        ),
      ].join('\n'),
  },
  'facts.add': {
    text: (r) => {
      const what = r.created ? 'created' : r.reinforced ? 'reinforced' : r.unchanged ? 'unchanged' : 'updated';
      return `${what} ${r.fact.id} [${scopeLabel(r.fact)}]${coercionNote(r.fact)} reinforcement ${r.fact.reinforcement}`;
    },
  },
  'facts.addBatch': {
    text: (r) =>
      `stored ${r.results.length} facts: ${r.created} new, ${r.reinforced} reinforced, ${r.unchanged} unchanged`,
  },
  'facts.delete': { text: forgotten },
  'memory.forget': { text: forgotten },
  'scopes.resolve': { text: (r) => r.visible.map((s) => `${s.scope}${s.key ? ':' + s.key : ''}`).join('\n') },
};
