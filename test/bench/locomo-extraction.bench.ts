/**
 * `npm run bench -- locomo-extraction`: extraction quality on the LoCoMo development half. Each
 * conversation is loaded into its own data home through contract commands, extraction runs over
 * every session through `extraction.run` (the engine's real path, every window), and the stored
 * facts are scored against the gold turns (see test/bench/locomo/extraction.ts).
 *
 * Options (run the file directly to pass them: `npx tsx test/bench/locomo-extraction.bench.ts
 * --check conv-42,conv-43`): --data FILE (default ../shared/bench/locomo-dev.json), --only ID,ID (a subset),
 * --check ID,ID (also print these conversations and the others as two separate groups, to see
 * whether what was tuned on one group holds on the other), --show (print every stored fact and
 * missed gold turn id to the console for inspection; nothing is written to disk).
 *
 * The baseline in the same run is "store every user turn": its precision is the share of user
 * turns that are gold, its coverage the share of gold turns the user spoke.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEngine, type Engine } from '../../src/main/engine';
import { defaultSettings } from '../../src/main/settings';
import { dispatch } from '../../src/main/commands/dispatch';
import { OWNER } from '../../src/main/commands/principal';
import { goldUserTurns, loadConversation, readLocomo, sessionsOf, type LocomoSample } from './locomo/dataset';
import { combine, formatFigures, measureConversation, type ExtractionFigures } from './locomo/extraction';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const list = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()) : []);

function everyUserTurnBaseline(samples: LocomoSample[]): string {
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
  return `baseline "store every user turn": precision ${(goldSpoken / userTurns).toFixed(3)} (${goldSpoken}/${userTurns}), coverage ${(goldSpoken / gold).toFixed(3)}`;
}

async function measure(sample: LocomoSample, home: string): Promise<ExtractionFigures> {
  const settings = defaultSettings();
  settings.extraction.enabled = false; // no cadence runs while loading: extraction.run does the work
  settings.extraction.legacyImportOnStartup = false;
  const engine: Engine = openEngine({ home, settings });
  try {
    const run = (name: string, input: Record<string, unknown>) => dispatch(engine, name, input, OWNER) as Promise<any>;
    const loaded = await loadConversation(run, sample);
    return await measureConversation({ sample, loaded, run });
  } finally {
    await engine.close();
  }
}

function show(r: ExtractionFigures): void {
  for (const f of r.facts)
    console.log(`  ${f.gold ? 'G' : '-'} ${f.diaId ?? '(none)'} [${f.scope}/${f.kind}] ${f.text}`);
  console.log(`  missed gold turns: ${r.missed.join(' ')}`);
}

async function main() {
  const data = readLocomo(option('data'));
  if ('missing' in data) {
    console.log(data.missing);
    return;
  }
  const only = list(option('only'));
  const check = list(option('check'));
  const samples = data.samples.filter((s) => only.length === 0 || only.includes(s.sample_id));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'evoflux-bench-locomo-extraction-'));
  const rows: ExtractionFigures[] = [];
  try {
    console.log(everyUserTurnBaseline(samples));
    for (const sample of samples) {
      const r = await measure(sample, path.join(dir, sample.sample_id));
      rows.push(r);
      console.log(formatFigures(r));
      if (process.argv.includes('--show')) show(r);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (check.length) {
    console.log(
      formatFigures(
        combine(
          'tuned-on',
          rows.filter((r) => !check.includes(r.id)),
        ),
      ),
    );
    console.log(
      formatFigures(
        combine(
          'checked',
          rows.filter((r) => check.includes(r.id)),
        ),
      ),
    );
  }
  const overall = combine('overall', rows);
  console.log(formatFigures(overall));
  const met = overall.precision >= 0.9 && overall.coverage >= 0.2 && overall.userScopeJunk === 0;
  console.log(
    `targets (precision >= 0.90, coverage >= 0.20, no user-scope junk): ${met ? 'met' : 'MISSED'}` +
      ` (load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores; other work on the machine slows messages/s)`,
  );
}

void main();
