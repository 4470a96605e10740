/**
 * Widening bench: what a fact search costs when one of its words is held by no visible fact and is
 * widened to the word it begins or cut back to one that begins it (memory/recall/widen-terms.ts),
 * beside the same search with the whole word typed (the baseline: what finding the same facts
 * costs without widening), at 1k, 10k and 100k facts of the agent bench's data, in process on one
 * connection. `npm run bench -- widen`. Prints figures; asserts nothing.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openTestEngine } from '../helpers/home';
import { resolveScopes } from '../../src/main/memory/scope';
import { searchFacts } from '../../src/main/memory/recall/search-facts';
import { searchPart } from '../../src/main/memory/search';
import { FactSource } from './agent/data';
import { runBench } from './bench-main';

const SIZES = [1_000, 10_000, 100_000];
const QUERIES = 1_000;
const BATCH = 1_000;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((p / 100) * xs.length)]!;
const figure = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(3)} / p99 ${pct(xs, 99).toFixed(3)} ms`;

async function main() {
  const t = openTestEngine();
  const sessions: string[] = [];
  for (let i = 0; i < 10; i++) sessions.push((await t.run('sessions.create', { projectId: `p${i}` })).id);
  const asker = sessions[0]!;
  const scopes = resolveScopes(t.engine.db, asker);
  const data = new FactSource(42);
  const visible: string[] = [];
  let loaded = 0;
  for (const size of SIZES) {
    for (; loaded < size; loaded += BATCH) {
      const sessionId = sessions[(loaded / BATCH) % sessions.length]!;
      const facts = Array.from({ length: BATCH }, () => data.fact());
      if (sessionId === asker) visible.push(...facts.map((f) => f.text));
      await t.run('facts.addBatch', { sessionId, facts });
    }
    // A query of words the session's facts hold, with one more word the facts hold (the baseline),
    // that word cut short to a prefix no fact holds as a word (a cut that is itself a word is
    // passed over), or that word with a suffix no fact holds ("...ment": cut back to the word).
    const plain: string[] = [];
    const widening: string[] = [];
    const suffixed: string[] = [];
    while (plain.length < QUERIES) {
      const query = data.query(visible[data.pick(visible.length)]!);
      const words = visible[data.pick(visible.length)]!.split(' ').filter((w) => w.length >= 7 && !/\d/.test(w));
      const word = words[data.pick(words.length)];
      if (!word) continue;
      const cut = word.slice(0, 4 + data.pick(word.length - 5));
      if (
        searchFacts(t.engine.db, scopes, cut, { mode: 'explicit', limit: 8 }).facts.every(
          (f) => !f.matched.includes(cut),
        )
      ) {
        plain.push(`${query} ${word}`);
        widening.push(`${query} ${cut}`);
        suffixed.push(`${query} ${word}ment`);
      }
    }
    const time = (queries: string[]) =>
      queries.map((query) => {
        const t0 = performance.now();
        searchPart(t.engine.db, path.join(t.home, 'wiki'), { sessionId: asker, query, limit: 8, sources: ['facts'] });
        return performance.now() - t0;
      });
    const base: number[] = [];
    const widened: number[] = [];
    const cutBack: number[] = [];
    // Alternating, so all three see the same caches and the same spell of the machine; the first
    // round warms up and is not counted.
    for (let round = 0; round < 4; round++) {
      const [b, w, c] = [time(plain), time(widening), time(suffixed)];
      if (round === 0) continue;
      base.push(...b);
      widened.push(...w);
      cutBack.push(...c);
    }
    console.log(
      `${size.toLocaleString('en')} facts: a word widened ${figure(widened)}; cut back ${figure(cutBack)}; the same search with the whole word (baseline) ${figure(base)}; ${(pct(widened, 50) / pct(base, 50)).toFixed(2)}x and ${(pct(cutBack, 50) / pct(base, 50)).toFixed(2)}x at p50`,
    );
  }
  await t.engine.close();
}

runBench(main);
