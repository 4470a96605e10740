/**
 * LoCoMo bench: `npm run bench -- locomo [--data FILE]` (default ../shared/bench/locomo-dev.json).
 * The data is read at run time and never copied into the repository (licence: evaluation only);
 * when the file is absent the bench says so and exits cleanly.
 *
 * Each measurement is a section module under test/bench/locomo/ that takes the samples and
 * prints its own figures; retrieval is the first. Add a section (extraction quality, say) by
 * writing its module and adding it to SECTIONS.
 */
import path from 'node:path';
import { DEFAULT_LOCOMO_FILE, readLocomo, type LocomoSample } from './locomo/dataset';
import { measureRetrieval, printRetrieval } from './locomo/retrieval';

interface Section {
  name: string;
  run(samples: readonly LocomoSample[]): Promise<void>;
}

const SECTIONS: Section[] = [
  { name: 'retrieval', run: async (samples) => printRetrieval(await measureRetrieval(samples)) },
];

function dataFile(args: readonly string[]): string {
  const i = args.findIndex((a) => a === '--data' || a.startsWith('--data='));
  if (i < 0) return DEFAULT_LOCOMO_FILE;
  const value = args[i]!.includes('=') ? args[i]!.slice('--data='.length) : args[i + 1];
  if (!value) throw new Error('--data needs a file');
  return path.resolve(value);
}

async function main(): Promise<void> {
  const file = dataFile(process.argv.slice(2));
  const data = readLocomo(file);
  if ('missing' in data) {
    console.log(`locomo: skipped. ${data.missing}. The data is read at run time and never copied into the repository.`);
    return;
  }
  const questions = data.samples.reduce((n, s) => n + s.qa.filter((q) => q.evidence?.length).length, 0);
  console.log(`locomo: ${file}: ${data.samples.length} conversations, ${questions} questions with evidence`);
  for (const section of SECTIONS) {
    const t0 = Date.now();
    await section.run(data.samples);
    console.log(`  (${section.name} took ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
