import { call, flag, fmtTime, int, requireStr, str, table, textArg, type CliCommand } from './framework';
import type { FactRecord } from '../../shared/schemas';
import { wikiLines } from './forget-text';

const coercionNote = (f: FactRecord) =>
  f.requestedScope ? ` (asked for ${f.requestedScope}: ${f.coercionReason})` : '';

export const factCli: CliCommand[] = [
  {
    path: ['facts', 'list'],
    summary: 'list semantic facts',
    usage:
      '[--scope user|project|workspace|folder|session] [--scope-key KEY] [--kind K] [--text T] [--session ID] [--sort reinforcement|confidence|recency] [--limit N] [--cursor C]',
    options: {
      scope: { type: 'string' },
      'scope-key': { type: 'string' },
      kind: { type: 'string' },
      text: { type: 'string' },
      session: { type: 'string' },
      sort: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
    },
    run: async (ctx, v) => {
      const page = await call(ctx, 'facts.list', {
        scope: str(v, 'scope'),
        scopeKey: str(v, 'scope-key'),
        kind: str(v, 'kind'),
        text: str(v, 'text'),
        sessionId: str(v, 'session'),
        sort: str(v, 'sort'),
        limit: int(v, 'limit'),
        cursor: str(v, 'cursor'),
      });
      const rows = page.facts.map((f) => [
        f.id,
        `${f.scope}${f.scopeKey ? ':' + f.scopeKey : ''}`,
        f.kind,
        f.confidence,
        String(f.reinforcement),
        f.text,
      ]);
      const text = page.facts.length
        ? table([['ID', 'SCOPE', 'KIND', 'CONF', 'REINF', 'TEXT'], ...rows]) +
          (page.nextCursor ? `\n(more: --cursor ${page.nextCursor})` : '')
        : 'no facts';
      return { data: page, text };
    },
  },
  {
    path: ['facts', 'show'],
    summary: 'show one fact with its evidence',
    usage: '--fact ID',
    options: { fact: { type: 'string' } },
    run: async (ctx, v) => {
      const f = await call(ctx, 'facts.get', { factId: requireStr(v, 'fact', 'factId') });
      const text = [
        `${f.id}`,
        `  text:          ${f.text}`,
        `  kind:          ${f.kind}`,
        `  scope:         ${f.scope}${f.scopeKey ? ':' + f.scopeKey : ''}${coercionNote(f)}`,
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
      ].join('\n');
      return { data: f, text };
    },
  },
  {
    path: ['facts', 'add'],
    summary: 'record a fact observed in a session (validated and scope-coerced like extraction)',
    usage: '--session ID [--message ID] [--scope S] [--kind K] [--confidence low|medium|high] TEXT',
    options: {
      session: { type: 'string' },
      message: { type: 'string' },
      scope: { type: 'string' },
      kind: { type: 'string' },
      confidence: { type: 'string' },
    },
    run: async (ctx, v, positionals) => {
      const r = await call(ctx, 'facts.add', {
        sessionId: requireStr(v, 'session', 'sessionId'),
        messageId: str(v, 'message'),
        scope: str(v, 'scope'),
        kind: str(v, 'kind'),
        confidence: str(v, 'confidence'),
        text: textArg(positionals, 'text'),
      });
      const what = r.created ? 'created' : r.reinforced ? 'reinforced' : r.unchanged ? 'unchanged' : 'updated';
      return {
        data: r,
        text: `${what} ${r.fact.id} [${r.fact.scope}${r.fact.scopeKey ? ':' + r.fact.scopeKey : ''}]${coercionNote(r.fact)} reinforcement ${r.fact.reinforcement}`,
      };
    },
  },
  {
    path: ['facts', 'delete'],
    summary: 'forget one fact and its evidence',
    usage: '--fact ID [--dry-run]',
    options: { fact: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    run: async (ctx, v) => {
      const r = await call(ctx, 'facts.delete', {
        factId: requireStr(v, 'fact', 'factId'),
        dryRun: flag(v, 'dry-run'),
      });
      return {
        data: r,
        text: [
          `${r.dryRun ? 'would delete' : 'deleted'} ${r.fact.id} [${r.fact.scope}] ${r.fact.text} (${r.evidenceRemoved} evidence row(s))`,
          ...wikiLines(r.wiki, r.dryRun),
        ].join('\n'),
      };
    },
  },
  {
    path: ['scopes', 'show'],
    summary: 'the scopes a session sees, most specific first',
    usage: '--session ID',
    options: { session: { type: 'string' } },
    run: async (ctx, v) => {
      const r = await call(ctx, 'scopes.resolve', { sessionId: requireStr(v, 'session', 'sessionId') });
      return { data: r, text: r.visible.map((s) => `${s.scope}${s.key ? ':' + s.key : ''}`).join('\n') };
    },
  },
];
