/**
 * `npm run bench -- locomo-extraction`: the extraction section of the LoCoMo bench on its own
 * (`npm run bench -- locomo` prints it after retrieval). See test/bench/locomo/extraction-section.ts.
 *
 * Options (`npx tsx test/bench/locomo-extraction.bench.ts --check conv-42,conv-43`, or after
 * `npm run bench -- locomo-extraction`): --data FILE (default ../shared/bench/locomo-dev.json),
 * --only ID,ID (a subset), --check ID,ID (also print these conversations and the others as two
 * separate groups, to see whether what was tuned on one group holds on the other), --show (print
 * every stored fact and missed gold turn id to the console for inspection; nothing is written).
 */
import { readLocomo } from './locomo/dataset';
import { dataFile } from './locomo/args';
import { runExtractionSection } from './locomo/extraction-section';
import { runBench } from './bench-main';

function option(name: string): string | undefined {
  const args = process.argv;
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  return args[i]!.includes('=') ? args[i]!.slice(name.length + 3) : args[i + 1];
}
const list = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()) : []);

async function main() {
  const data = readLocomo(dataFile(process.argv.slice(2)));
  if ('missing' in data) {
    console.log(`locomo-extraction: skipped. ${data.missing}.`);
    return;
  }
  const only = list(option('only'));
  const samples = data.samples.filter((s) => only.length === 0 || only.includes(s.sample_id));
  await runExtractionSection(samples, { check: list(option('check')), show: process.argv.includes('--show') });
}

runBench(main);
