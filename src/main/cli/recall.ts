import { readFileSync } from 'node:fs';
import { call, int, requireStr, str, textArg, type CliCommand } from './framework';
import { invalid } from '../../shared/errors';

const sources = (v: string | undefined) =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/** `--checkpoint-file F` holds the agent loop's JSON state. */
function checkpointFrom(file: string | undefined): unknown {
  if (file === undefined) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw invalid('checkpoint', `--checkpoint-file must be a readable JSON file (${(e as Error).message})`);
  }
}

export const recallCli: CliCommand[] = [
  {
    path: ['recall'],
    summary: 'automatic recall for a request: up to three scoped facts in the untrusted-data block',
    usage: '--session ID TEXT',
    options: { session: { type: 'string' } },
    run: async (ctx, v, positionals) => {
      const r = await call(ctx, 'memory.recall', {
        sessionId: requireStr(v, 'session', 'sessionId'),
        text: textArg(positionals, 'text'),
      });
      const text = r.abstained
        ? `abstained: ${r.reason}`
        : r.facts.length === 0
          ? 'no facts recalled'
          : [
              ...r.facts.map(
                (f, i) =>
                  `${i + 1}. [${f.scope}/${f.kind}/${f.confidence}] ${f.text}  (score ${f.score.toFixed(3)}, fact ${f.id})`,
              ),
              '',
              r.block ?? '',
            ].join('\n');
      return { data: r, text };
    },
  },
  {
    path: ['search'],
    summary: 'memory_search: scoped facts, legacy wiki pages and scoped dialogue evidence',
    usage: '--session ID [--limit N] [--sources facts,wiki,dialogue] TEXT',
    options: { session: { type: 'string' }, limit: { type: 'string' }, sources: { type: 'string' } },
    run: async (ctx, v, positionals) => {
      const r = await call(ctx, 'memory.search', {
        sessionId: requireStr(v, 'session', 'sessionId'),
        query: textArg(positionals, 'query'),
        limit: int(v, 'limit'),
        sources: sources(str(v, 'sources')),
      });
      const text = r.results.length
        ? r.results
            .map((h, i) => {
              const where = h.citation.path ?? [h.citation.sessionId, h.citation.messageId].filter(Boolean).join(' / ');
              return `${i + 1}. ${h.ref}  score=${h.score.toFixed(3)}  ${where}\n   title: ${h.title}\n   excerpt: ${h.snippet}`;
            })
            .join('\n\n')
        : 'no memory results';
      return { data: r, text };
    },
  },
  {
    path: ['turns', 'begin'],
    summary: 'start a turn: persist the user message, recall, and print the context for the model',
    usage: '--session ID TEXT',
    options: { session: { type: 'string' } },
    run: async (ctx, v, positionals) => {
      const r = await call(ctx, 'turns.begin', {
        sessionId: requireStr(v, 'session', 'sessionId'),
        userText: textArg(positionals, 'userText'),
      });
      return { data: r, text: r.context.block };
    },
  },
  {
    path: ['turns', 'complete'],
    summary: "finish a turn: persist the response (and the agent's checkpoint)",
    usage: '--session ID [--checkpoint-file F] TEXT',
    options: { session: { type: 'string' }, 'checkpoint-file': { type: 'string' } },
    run: async (ctx, v, positionals) => {
      const r = await call(ctx, 'turns.complete', {
        sessionId: requireStr(v, 'session', 'sessionId'),
        assistantText: textArg(positionals, 'assistantText'),
        checkpoint: checkpointFrom(str(v, 'checkpoint-file')),
      });
      return { data: r, text: `stored ${r.assistantMessage.id}; completed responses: ${r.completedResponses}` };
    },
  },
  {
    path: ['turns', 'compact'],
    summary: 'compact a session: one durable summary replaces older turns (all kept for audit)',
    usage: '--session ID [--keep N]',
    options: { session: { type: 'string' }, keep: { type: 'string' } },
    run: async (ctx, v) => {
      const r = await call(ctx, 'turns.compact', {
        sessionId: requireStr(v, 'session', 'sessionId'),
        keepLastTurns: int(v, 'keep', 'keepLastTurns'),
      });
      return {
        data: r,
        text: r.summary
          ? `compacted ${r.compactedMessages} message(s) into summary ${r.summary.id} (${r.summarizer})`
          : 'nothing to compact',
      };
    },
  },
];
