import { call, requireStr, type CliCommand } from './framework';

export const citationCli: CliCommand[] = [
  {
    path: ['citations', 'resolve'],
    summary: 'the session and message an opaque citation ref (ref:e:… / ref:m:…) cites',
    usage: '--ref REF',
    options: { ref: { type: 'string' } },
    run: async (ctx, v) => {
      const r = await call(ctx, 'citations.resolve', { ref: requireStr(v, 'ref') });
      const text = [
        `session ${r.sessionId}${r.sessionTitle ? ` "${r.sessionTitle}"` : ''}`,
        r.messageId ? `message ${r.messageId} (#${r.messageSeq}): ${r.messageExcerpt ?? ''}` : 'no message recorded',
      ].join('\n');
      return { data: r, text };
    },
  },
];
