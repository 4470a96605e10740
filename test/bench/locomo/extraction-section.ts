/**
 * The extraction section of the LoCoMo bench (`npm run bench -- locomo`) and of the
 * extraction-only run (`locomo-extraction.bench.ts`): each conversation is loaded into its own temp
 * data home through contract commands, extraction runs over every session through `extraction.run`
 * (the engine's real path, every window), and the stored facts are scored against the gold turns
 * (see extraction.ts). Beside it in the same run: the "store every user turn" baseline, and the
 * rule extractor alone over 20,000 LoCoMo messages (messages per second).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { dispatch } from '../../../src/main/commands/dispatch';
import { OWNER } from '../../../src/main/commands/principal';
import { openEngine } from '../../../src/main/engine';
import { extractSync, loadEnglish } from '../../../src/main/memory/extraction/rule-extractor';
import type { TranscriptEntry } from '../../../src/main/memory/extraction/types';
import { defaultSettings } from '../../../src/main/settings';
import { tempHome } from '../../helpers/home';
import { goldUserTurns, loadConversation, sessionsOf, turnText, type LocomoSample, type RunCommand } from './dataset';
import { combine, formatFigures, measureConversation, type ExtractionFigures } from './extraction';
import { addFactRecall, emptyFactRecall, formatFactRecall, measureFactRecall } from './fact-recall';

export const TARGETS = { precision: 0.9, coverage: 0.2, userScopeJunk: 0 } as const;

/** Extraction over one conversation in a fresh data home; cadence runs off, extraction.run does the work. */
export async function measureSample(sample: LocomoSample): Promise<ExtractionFigures> {
  const settings = defaultSettings();
  settings.extraction.enabled = false;
  settings.extraction.legacyImportOnStartup = false;
  const home = tempHome('evoflux-bench-locomo-extraction-');
  const engine = openEngine({ home: home.dir, settings });
  try {
    const run: RunCommand = (name, input) => dispatch(engine, name, input, OWNER);
    const loaded = await loadConversation(run, sample);
    const figures = await measureConversation({ sample, loaded, run });
    const cited = new Set(figures.facts.map((f) => f.diaId).filter((d): d is string => d !== null));
    figures.recall = await measureFactRecall({ sample, loaded, run }, cited);
    return figures;
  } finally {
    await engine.close();
    home.cleanup();
  }
}

/** "Store every user turn": its precision is the share of user turns that are gold. */
export function everyUserTurnBaseline(samples: readonly LocomoSample[]): string {
  let userTurns = 0;
  let goldSpoken = 0;
  let gold = 0;
  for (const s of samples) {
    const g = goldUserTurns(s);
    gold += g.size;
    for (const session of sessionsOf(s)) {
      for (const t of session.turns) {
        if (t.speaker !== s.conversation.speaker_a) continue;
        userTurns++;
        if (g.has(t.dia_id)) goldSpoken++;
      }
    }
  }
  return (
    `baseline "store every user turn": precision ${(goldSpoken / userTurns).toFixed(3)} (${goldSpoken}/${userTurns}),` +
    ` coverage ${(goldSpoken / gold).toFixed(3)}`
  );
}

const THROUGHPUT_MESSAGES = 20_000;
const WINDOW = 20;

/** The rule extractor alone (no store) over 20,000 LoCoMo messages in windows of 20. */
export async function ruleThroughput(samples: readonly LocomoSample[]): Promise<string> {
  await loadEnglish();
  const turns = samples.flatMap((s) =>
    sessionsOf(s).flatMap((session) =>
      session.turns.map((t) => ({ role: t.speaker === s.conversation.speaker_a, text: turnText(t) })),
    ),
  );
  if (turns.length === 0) return 'rule extractor: no turns';
  const entries: TranscriptEntry[] = Array.from({ length: THROUGHPUT_MESSAGES }, (_, i) => {
    const t = turns[i % turns.length]!;
    return { messageId: `m${i}`, seq: i + 1, role: t.role ? 'user' : 'assistant', text: t.text };
  });
  const t0 = performance.now();
  let candidates = 0;
  for (let i = 0; i < entries.length; i += WINDOW)
    candidates += extractSync({ entries: entries.slice(i, i + WINDOW) }).length;
  const seconds = (performance.now() - t0) / 1000;
  return (
    `rule extractor alone: ${Math.round(THROUGHPUT_MESSAGES / seconds).toLocaleString('en')} messages/s ` +
    `(${THROUGHPUT_MESSAGES.toLocaleString('en')} LoCoMo messages, windows of ${WINDOW}, ${candidates} candidates, ${seconds.toFixed(2)} s)`
  );
}

export const targetsMet = (r: ExtractionFigures): boolean =>
  r.precision >= TARGETS.precision && r.coverage >= TARGETS.coverage && r.userScopeJunk <= TARGETS.userScopeJunk;

/** The worst conversation by precision and by coverage: the figure held-out data is most like. */
export function worstCase(rows: readonly ExtractionFigures[]): string {
  if (rows.length === 0) return 'worst case: none';
  const byPrecision = [...rows].sort((a, b) => a.precision - b.precision)[0]!;
  const byCoverage = [...rows].sort((a, b) => a.coverage - b.coverage)[0]!;
  return (
    `worst case: precision ${byPrecision.precision.toFixed(3)} (${byPrecision.id}), ` +
    `coverage ${byCoverage.coverage.toFixed(3)} (${byCoverage.id}); conversations meeting every target: ` +
    `${rows.filter(targetsMet).length}/${rows.length}`
  );
}

export interface ExtractionOptions {
  /** Conversation ids printed as a separate "checked" group beside the others ("tuned-on"). */
  check?: readonly string[];
  /** Print every stored fact and missed gold turn id (console only; nothing is written). */
  show?: boolean;
}

function show(r: ExtractionFigures): void {
  for (const f of r.facts)
    console.log(`  ${f.gold ? 'G' : '-'} ${f.diaId ?? '(none)'} [${f.scope}/${f.kind}] ${f.text}`);
  console.log(`  missed gold turns: ${r.missed.join(' ')}`);
}

/** Measures and prints the whole section; returns the overall row. */
export async function runExtractionSection(
  samples: readonly LocomoSample[],
  options: ExtractionOptions = {},
): Promise<ExtractionFigures> {
  console.log('extraction: built-in rules through extraction.run, facts scored against the gold turns');
  console.log(`  ${everyUserTurnBaseline(samples)}`);
  const rows: ExtractionFigures[] = [];
  for (const sample of samples) {
    const r = await measureSample(sample);
    rows.push(r);
    console.log(`  ${formatFigures(r)}`);
    if (options.show) show(r);
  }
  const check = options.check ?? [];
  if (check.length) {
    console.log(
      `  ${formatFigures(
        combine(
          'tuned-on',
          rows.filter((r) => !check.includes(r.id)),
        ),
      )}`,
    );
    console.log(
      `  ${formatFigures(
        combine(
          'checked',
          rows.filter((r) => check.includes(r.id)),
        ),
      )}`,
    );
  }
  const overall = combine('overall', rows);
  console.log(`  ${formatFigures(overall)}`);
  console.log(`  ${worstCase(rows)}`);
  const recall = rows.reduce((sum, r) => (r.recall ? addFactRecall(sum, r.recall) : sum), emptyFactRecall());
  console.log(`  the facts on the questions: ${formatFactRecall(recall)}`);
  console.log(`  ${await ruleThroughput(samples)}`);
  console.log(
    `  targets (precision >= ${TARGETS.precision.toFixed(2)}, coverage >= ${TARGETS.coverage.toFixed(2)}, no user-scope junk): ` +
      `${targetsMet(overall) ? 'met' : 'MISSED'} overall` +
      ` (load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores; other work on the machine slows messages/s)`,
  );
  return overall;
}
