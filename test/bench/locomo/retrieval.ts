/**
 * The retrieval section of the LoCoMo bench: each conversation is loaded into its own temp data
 * home through the engine's contract commands, then every question that has evidence is asked
 * through memory.search (sources dialogue, limit 10) from a new session of that project.
 * recall@k = the share of the question's evidence turns found in the top k, averaged over
 * questions, overall and per category, beside plain BM25 over the same turns.
 *
 * Extraction is disabled in these engines (settings), so no background run competes with the
 * searches being timed or writes facts while the conversation loads.
 */
import { performance } from 'node:perf_hooks';
import { openEngine } from '../../../src/main/engine';
import { dispatch } from '../../../src/main/commands/dispatch';
import { OWNER } from '../../../src/main/commands/principal';
import { defaultSettings } from '../../../src/main/settings';
import { tempHome } from '../../helpers/home';
import { plainBm25 } from './bm25';
import { CATEGORY_NAMES, loadConversation, sessionsOf, turnText, type LocomoSample, type RunCommand } from './dataset';

export const KS = [1, 5, 10] as const;

export interface QuestionResult {
  conversation: string;
  category: number;
  engine: number[];
  bm25: number[];
}

export interface RetrievalReport {
  questions: QuestionResult[];
  latencyMs: number[];
  cpuMs: number[];
}

const recallAt = (ranked: readonly string[], evidence: readonly string[]): number[] => {
  const gold = new Set(evidence);
  return KS.map((k) => ranked.slice(0, k).filter((id) => gold.has(id)).length / gold.size);
};

const retrievalSettings = () => {
  const s = defaultSettings();
  return { ...s, extraction: { ...s.extraction, enabled: false, legacyImportOnStartup: false } };
};

async function measureConversation(sample: LocomoSample, report: RetrievalReport): Promise<void> {
  const home = tempHome('evoflux-bench-locomo-');
  const engine = openEngine({ home: home.dir, settings: retrievalSettings() });
  try {
    const run: RunCommand = (name, input) => dispatch(engine, name, input, OWNER);
    const loaded = await loadConversation(run, sample);
    const asker = await run('sessions.create', { projectId: loaded.projectId, title: 'questions' });
    const turns = sessionsOf(sample).flatMap((s) => s.turns.map((t) => ({ id: t.dia_id, text: turnText(t) })));
    const bm25 = plainBm25(turns);
    for (const qa of sample.qa) {
      if (!qa.evidence?.length) continue;
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      const { results } = await dispatch(
        engine,
        'memory.search',
        {
          sessionId: asker.id,
          query: qa.question,
          limit: 10,
          sources: ['dialogue'],
        },
        OWNER,
      );
      report.latencyMs.push(performance.now() - t0);
      const used = process.cpuUsage(cpu);
      report.cpuMs.push((used.user + used.system) / 1000);
      const ranked = results.map((r) => loaded.diaIdOf.get(r.citation.messageId ?? '') ?? '');
      report.questions.push({
        conversation: sample.sample_id,
        category: qa.category,
        engine: recallAt(ranked, qa.evidence),
        bm25: recallAt(bm25.rank(qa.question), qa.evidence),
      });
    }
  } finally {
    await engine.close();
    home.cleanup();
  }
}

export async function measureRetrieval(samples: readonly LocomoSample[]): Promise<RetrievalReport> {
  const report: RetrievalReport = { questions: [], latencyMs: [], cpuMs: [] };
  for (const sample of samples) await measureConversation(sample, report);
  return report;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const pct = (xs: readonly number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const figures = (qs: readonly QuestionResult[], who: 'engine' | 'bm25') =>
  KS.map((_, i) => mean(qs.map((q) => q[who][i]!)).toFixed(3)).join('  ');

function row(label: string, qs: readonly QuestionResult[]): string {
  return `  ${label.padEnd(22)} ${String(qs.length).padStart(5)}   ${figures(qs, 'engine')}   ${figures(qs, 'bm25')}`;
}

export function printRetrieval(report: RetrievalReport): void {
  const qs = report.questions;
  console.log('retrieval: memory.search (dialogue, limit 10) vs plain BM25 on the same turns');
  console.log(`  ${'questions'.padEnd(22)} ${'n'.padStart(5)}   engine @1/@5/@10      BM25 @1/@5/@10`);
  console.log(row('all', qs));
  for (const c of [...new Set(qs.map((q) => q.category))].sort())
    console.log(
      row(
        `${c} ${CATEGORY_NAMES[c] ?? ''}`,
        qs.filter((q) => q.category === c),
      ),
    );
  for (const conv of [...new Set(qs.map((q) => q.conversation))])
    console.log(
      row(
        conv,
        qs.filter((q) => q.conversation === conv),
      ),
    );
  console.log(
    `  memory.search latency p50 ${pct(report.latencyMs, 50).toFixed(2)} ms  p99 ${pct(report.latencyMs, 99).toFixed(2)} ms;` +
      ` CPU per call p50 ${pct(report.cpuMs, 50).toFixed(2)} ms  p99 ${pct(report.cpuMs, 99).toFixed(2)} ms  (n=${report.latencyMs.length})`,
  );
}
