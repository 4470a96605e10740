import { beforeAll, describe, expect, it } from 'vitest';
import { labelledSnippets } from '../fixtures/extraction-labelled';
import { extractSync, loadEnglish, ruleExtractor } from '../../src/main/memory/extraction/rule-extractor';
import { proposeForSentence } from '../../src/main/memory/extraction/statement-rules';

beforeAll(async () => {
  await loadEnglish();
});
import type { TranscriptEntry } from '../../src/main/memory/extraction/types';

const entriesOf = (messages: { role: 'user' | 'assistant'; content: string }[]): TranscriptEntry[] =>
  messages.map((m, i) => ({ messageId: `m${i + 1}`, seq: i + 1, role: m.role, text: m.content }));

/** Precision and recall of the rule extractor over the labelled set (kind + phrase must match). */
export function scoreLabelledSet() {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const misses: string[] = [];
  for (const s of labelledSnippets) {
    const got = extractSync({ entries: entriesOf(s.messages) });
    const used = new Set<number>();
    for (const g of got) {
      const i = s.expected.findIndex(
        (e, j) => !used.has(j) && e.kind === g.kind && g.text.toLowerCase().includes(e.includes),
      );
      if (i >= 0) (used.add(i), tp++);
      else (fp++, misses.push(`false positive in ${s.id}: ${g.kind} "${g.text}"`));
    }
    s.expected.forEach((e, j) => {
      if (!used.has(j)) (fn++, misses.push(`missed in ${s.id}: ${e.kind} "${e.includes}"`));
    });
  }
  return { tp, fp, fn, precision: tp / (tp + fp), recall: tp / (tp + fn), misses };
}

describe('rule extractor on the labelled set', () => {
  it('has at least 40 snippets, positives and negatives', () => {
    expect(labelledSnippets.length).toBeGreaterThanOrEqual(40);
    expect(labelledSnippets.filter((s) => s.expected.length === 0).length).toBeGreaterThanOrEqual(15);
    expect(new Set(labelledSnippets.map((s) => s.id)).size).toBe(labelledSnippets.length);
  });

  it('is precise rather than eager: precision >= 0.95, recall >= 0.85', () => {
    const score = scoreLabelledSet();
    console.log(
      `rule extractor on ${labelledSnippets.length} labelled snippets: precision ${score.precision.toFixed(3)}, ` +
        `recall ${score.recall.toFixed(3)} (tp ${score.tp}, fp ${score.fp}, fn ${score.fn})\n  ${score.misses.join('\n  ')}`,
    );
    expect(score.precision).toBeGreaterThanOrEqual(0.95);
    expect(score.recall).toBeGreaterThanOrEqual(0.85);
  });

  it('yields nothing for every negative snippet', () => {
    for (const s of labelledSnippets.filter((x) => x.expected.length === 0)) {
      expect(extractSync({ entries: entriesOf(s.messages) }), s.id).toEqual([]);
    }
  });
});

describe('rule extractor behaviour', () => {
  it('is deterministic and names the message each candidate came from', async () => {
    const entries = entriesOf([
      { role: 'user', content: 'Hello there.' },
      { role: 'assistant', content: 'Hi.' },
      { role: 'user', content: 'We decided to use Postgres. I prefer short answers.' },
    ]);
    const window = { sessionId: 's', entries, text: '', lastSeq: 3, truncated: false };
    const first = await ruleExtractor.extract(window, new AbortController().signal);
    expect(first).toEqual(await ruleExtractor.extract(window, new AbortController().signal));
    expect(first.map((c) => [c.kind, c.scope, c.messageId])).toEqual([
      ['decision', 'project', 'm3'],
      ['preference', 'user', 'm3'],
    ]);
  });

  it('never returns more than 8 candidates; the newest statements win', () => {
    const entries = entriesOf(
      Array.from({ length: 12 }, (_, i) => ({
        role: 'user' as const,
        content: `We decided to use tool number ${i + 1}.`,
      })),
    );
    const got = extractSync({ entries });
    expect(got).toHaveLength(8);
    expect(got[0]!.text).toContain('tool number 5');
    expect(got[7]!.text).toContain('tool number 12');
  });

  it('reads only user lines and summaries, never assistant lines', () => {
    expect(extractSync({ entries: [{ messageId: 'a', seq: 1, role: 'assistant', text: 'I prefer tabs.' }] })).toEqual(
      [],
    );
    expect(
      extractSync({
        entries: [{ messageId: 's', seq: 1, role: 'summary', text: 'We decided to ship on Fridays only.' }],
      }),
    ).toHaveLength(1);
  });

  it('user scope only for preferences and profile; technical standing instructions stay in the project', () => {
    expect(proposeForSentence('Always write docstrings for public functions.')).toMatchObject({
      kind: 'convention',
      scope: 'project',
    });
    expect(proposeForSentence('Never use any in TypeScript code.')).toMatchObject({
      kind: 'constraint',
      scope: 'project',
    });
    expect(proposeForSentence('Always greet me in Vietnamese.')).toMatchObject({ kind: 'preference', scope: 'user' });
    expect(proposeForSentence('Call me Alex.')).toMatchObject({
      kind: 'profile',
      scope: 'user',
      text: 'User wants to be called Alex.',
    });
  });
});
