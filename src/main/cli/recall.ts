import type { CliViews } from './framework';

export const recallViews: CliViews = {
  'memory.recall': {
    text: (r) =>
      r.abstained
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
            ].join('\n'),
  },
  'memory.search': {
    text: (r) =>
      r.results.length
        ? r.results
            .map((h, i) => {
              const where = h.citation.path ?? [h.citation.sessionId, h.citation.messageId].filter(Boolean).join(' / ');
              return `${i + 1}. ${h.ref}  score=${h.score.toFixed(3)}  ${where}\n   title: ${h.title}\n   excerpt: ${h.snippet}`;
            })
            .join('\n\n')
        : 'no memory results',
  },
  'turns.begin': { text: (r) => r.context.block },
  'turns.complete': {
    text: (r) => `stored ${r.assistantMessage.id}; completed responses: ${r.completedResponses}`,
  },
  'turns.compact': {
    text: (r) =>
      r.summary
        ? `compacted ${r.compactedMessages} message(s) into summary ${r.summary.id} (${r.summarizer})`
        : 'nothing to compact',
  },
};
