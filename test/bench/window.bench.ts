/**
 * Desktop window benchmark: what the Facts view asks for while scrolling 1M facts. Seeds 1M
 * facts straight into SQLite, then times facts.list pages of 200 (the view's page size) through
 * the real HTTP door: the first page and a page 50 pages deep (keyset cursor), per sort, with
 * and without a scope filter, plus a text search. Prints figures; asserts nothing.
 * Target: a page well under a frame budget of network time (< 50 ms) so infinite scroll stays smooth.
 */
import { performance } from 'node:perf_hooks';
import { openTestEngine } from '../helpers/home';
import { startHttpServer } from '../../src/main/api/http';
import { writeTx } from '../../src/main/store/db';
import { insertFactForSeeding } from '../../src/main/store/facts';
import { FACT_KINDS } from '../../src/shared/domain';
import { runBench } from './bench-main';

const TOTAL = Number(process.env.BENCH_FACTS ?? 1_000_000);
const PAGE = 200;

async function main() {
  const t = openTestEngine();
  const db = t.engine.db;
  let t0 = performance.now();
  const confs = ['low', 'medium', 'high'] as const;
  for (let start = 0; start < TOTAL; start += 50_000) {
    writeTx(db, () => {
      for (let i = start; i < Math.min(TOTAL, start + 50_000); i++) {
        const user = i % 20 === 0;
        const at = 1_700_000_000_000 + i;
        insertFactForSeeding(db, {
          id: `f${String(i).padStart(8, '0')}`,
          scope: user ? 'user' : 'project',
          scopeKey: user ? '' : `p${i % 10}`,
          kind: FACT_KINDS[i % FACT_KINDS.length]!,
          text: `Fact ${i}: service ${i % 500} uses config variant ${i % 97}`,
          confidence: confs[i % 3]!,
          reinforcement: 1 + (i % 7),
          origin: 'extraction',
          requestedScope: null,
          coercionReason: null,
          firstSeenAt: at,
          lastSeenAt: at,
          updatedAt: at,
        });
      }
    });
  }
  db.pragma('optimize');
  console.log(`seeded ${TOTAL.toLocaleString('en')} facts in ${(performance.now() - t0).toFixed(0)} ms`);

  const server = await startHttpServer({ engine: t.engine, port: 0, rendererDir: null });
  const call = async (input: Record<string, unknown>) => {
    const r = await fetch(`${server.url}/api/commands/facts.list`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...input, limit: PAGE }),
    });
    if (!r.ok) throw new Error(`${r.status} ${await r.text()}`);
    return (await r.json()) as { facts: unknown[]; nextCursor: string | null };
  };
  const time = async (label: string, input: Record<string, unknown>, deep: number) => {
    let cursor: string | undefined;
    const pageMs: number[] = [];
    for (let p = 0; p <= deep; p++) {
      t0 = performance.now();
      const page = await call({ ...input, cursor });
      pageMs.push(performance.now() - t0);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const sorted = [...pageMs].sort((a, b) => a - b);
    console.log(
      `${label.padEnd(44)} first ${pageMs[0]!.toFixed(1).padStart(7)} ms   page ${String(pageMs.length - 1).padStart(2)} ${pageMs[pageMs.length - 1]!.toFixed(1).padStart(7)} ms   p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1).padStart(6)} ms   max ${sorted[sorted.length - 1]!.toFixed(1).padStart(7)} ms`,
    );
  };
  for (const sort of ['reinforcement', 'recency', 'confidence']) {
    await time(`all facts, sort=${sort}`, { sort }, 50);
    await time(`scope=project key=p3, sort=${sort}`, { sort, scope: 'project', scopeKey: 'p3' }, 50);
  }
  await time('kind=decision, sort=reinforcement', { kind: 'decision' }, 10);
  await time('text "variant 42", sort=reinforcement', { text: 'variant 42' }, 5);
  // Any word matches, so a common word matches most of the store; relevance ranks every match.
  await time('text "variant 42", sort=relevance', { text: 'variant 42', sort: 'relevance' }, 5);
  await time(
    'text "service 17", sort=relevance, scope p3',
    { text: 'service 17', sort: 'relevance', scope: 'project', scopeKey: 'p3' },
    5,
  );
  await time('text "config" (every fact), sort=recency', { text: 'config', sort: 'recency' }, 5);
  const count = async (input: Record<string, unknown>) => {
    t0 = performance.now();
    const r = await fetch(`${server.url}/api/commands/facts.count`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
    const { total } = (await r.json()) as { total: number };
    console.log(
      `facts.count ${JSON.stringify(input).padEnd(40)} ${total} in ${(performance.now() - t0).toFixed(1)} ms`,
    );
  };
  await count({});
  await count({ scope: 'project', scopeKey: 'p3' });
  await count({ kind: 'decision' });
  await count({ text: 'variant 42' });
  await server.close();
  await t.close();
}

runBench(main);
