/**
 * What the extracted facts give back on LoCoMo's questions, after extraction has run: for every
 * question with evidence, automatic recall (`memory.recall`, the abstain rule and the half-the-words
 * coverage rule, at most 3 facts) and an explicit fact search (`memory.search`, facts only, top 3),
 * each from a new session of the conversation's project. A question counts as answerable by memory
 * when some stored fact cites one of its evidence turns; a hit is a returned fact citing one.
 */
import type { ConversationForExtraction } from './extraction';

export interface FactRecallFigures {
  questions: number;
  /** Questions one of whose evidence turns some stored fact cites. */
  answerable: number;
  /** Questions for which automatic recall returned at least one fact. */
  recallFired: number;
  /** Answerable questions whose recalled facts cite an evidence turn. */
  recallHits: number;
  /** Facts automatic recall returned, and those citing an evidence turn of their question. */
  recalledFacts: number;
  recalledOnEvidence: number;
  /** Answerable questions whose top 3 explicit fact search results cite an evidence turn. */
  searchHits: number;
}

export const emptyFactRecall = (): FactRecallFigures => ({
  questions: 0,
  answerable: 0,
  recallFired: 0,
  recallHits: 0,
  recalledFacts: 0,
  recalledOnEvidence: 0,
  searchHits: 0,
});

/** Runs every question of one conversation against its extracted facts. */
export async function measureFactRecall(
  c: ConversationForExtraction,
  citedTurns: ReadonlySet<string>,
): Promise<FactRecallFigures> {
  const figures = emptyFactRecall();
  const asker = (await c.run('sessions.create', { projectId: c.loaded.projectId, title: 'questions' })).id;
  const turnOf = (messageId: string | null | undefined) => (messageId ? c.loaded.diaIdOf.get(messageId) : undefined);
  for (const q of c.sample.qa) {
    const evidence = new Set(q.evidence ?? []);
    if (evidence.size === 0) continue;
    figures.questions++;
    const answerable = [...evidence].some((d) => citedTurns.has(d));
    if (answerable) figures.answerable++;
    const recalled = (await c.run('memory.recall', { sessionId: asker, text: q.question })).facts as {
      citation: { messageId: string | null };
    }[];
    if (recalled.length > 0) figures.recallFired++;
    const onEvidence = recalled.filter((f) => evidence.has(turnOf(f.citation.messageId) ?? ''));
    figures.recalledFacts += recalled.length;
    figures.recalledOnEvidence += onEvidence.length;
    if (answerable && onEvidence.length > 0) figures.recallHits++;
    const searched = (
      await c.run('memory.search', { sessionId: asker, query: q.question, sources: ['facts'], limit: 3 })
    ).results as { citation: { messageId?: string | null } }[];
    if (answerable && searched.some((h) => evidence.has(turnOf(h.citation.messageId) ?? ''))) figures.searchHits++;
  }
  return figures;
}

export function addFactRecall(a: FactRecallFigures, b: FactRecallFigures): FactRecallFigures {
  const out = emptyFactRecall();
  for (const k of Object.keys(out) as (keyof FactRecallFigures)[]) out[k] = a[k] + b[k];
  return out;
}

const share = (a: number, b: number) => (b === 0 ? '0.000' : (a / b).toFixed(3));

export const formatFactRecall = (r: FactRecallFigures): string =>
  `questions ${r.questions}, answerable by a stored fact ${r.answerable}; automatic recall returned facts for ` +
  `${r.recallFired} (${share(r.recallFired, r.questions)}), an evidence fact for ${r.recallHits} of the answerable ` +
  `(${share(r.recallHits, r.answerable)}), ${r.recalledOnEvidence} of its ${r.recalledFacts} facts on evidence ` +
  `(${share(r.recalledOnEvidence, r.recalledFacts)}); memory_search facts top 3: an evidence fact for ` +
  `${r.searchHits} of the answerable (${share(r.searchHits, r.answerable)})`;
