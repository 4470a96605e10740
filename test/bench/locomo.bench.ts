/**
 * LoCoMo bench: `npm run bench -- locomo [--data FILE]` (default ../shared/bench/locomo-dev.json).
 * The data is read at run time and never copied into the repository (licence: evaluation only);
 * when the file is absent the bench says so and exits cleanly.
 *
 * Each measurement is a section module under test/bench/locomo/ that takes the samples and
 * prints its own figures: retrieval (recall@k of memory.search beside plain BM25), then extraction
 * (precision, coverage and user-scope junk per conversation and overall, worst case, throughput).
 * Add a section by writing its module and adding it to SECTIONS.
 */
import { dataFile } from './locomo/args';
import { readLocomo, type LocomoSample } from './locomo/dataset';
import { runExtractionSection } from './locomo/extraction-section';
import { measureRetrieval, printRetrieval } from './locomo/retrieval';
import { runBench } from './bench-main';

interface Section {
  name: string;
  run(samples: readonly LocomoSample[]): Promise<void>;
}

const SECTIONS: Section[] = [
  { name: 'retrieval', run: async (samples) => printRetrieval(await measureRetrieval(samples)) },
  { name: 'extraction', run: async (samples) => void (await runExtractionSection(samples)) },
];

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

runBench(main);
