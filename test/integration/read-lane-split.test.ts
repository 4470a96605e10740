import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createReadLane, type ReadLane } from '../../src/main/workers/read-lane';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { openLaneReader, runReadTask } from '../../src/main/workers/read-lane-tasks';
import { mergeSearchParts, type SearchHit, type SearchRequest } from '../../src/main/memory/search';

let lane: ReadLane | null = null;
let t: TestEngine | null = null;
afterEach(async () => {
  await lane?.close();
  await t?.close();
  lane = null;
  t = null;
});

const QUERIES = [
  'kafka brokers',
  'terraform state bucket',
  'kafka partition rebalancing',
  'state',
  'nothing here at all',
];

/** A project with facts, dialogue and wiki pages that all match some of QUERIES, with ties. */
async function seed(engine: TestEngine): Promise<string> {
  const a = await engine.run('sessions.create', { projectId: 'alpha', title: 'alpha chat' });
  const b = await engine.run('sessions.create', { projectId: 'beta' });
  for (const text of [
    'kafka streams run on three brokers',
    'Terraform state is stored in an S3 bucket',
    'kafka partition rebalancing is slow on big topics',
    'state files are locked in DynamoDB',
  ]) {
    await engine.run('facts.add', { sessionId: a.id, text, scope: 'project' });
  }
  await engine.run('facts.add', { sessionId: b.id, text: 'kafka brokers for beta are managed', scope: 'project' });
  for (const [role, content] of [
    ['user', 'how does kafka partition rebalancing work'],
    ['assistant', 'kafka partition rebalancing moves partitions between consumers'],
    ['user', 'We moved terraform state to the S3 bucket last week'],
    ['assistant', 'the three kafka brokers sit behind one load balancer'],
  ] as const) {
    await engine.run('messages.add', { sessionId: a.id, role, content });
  }
  const wiki = engine.engine.paths.wiki;
  mkdirSync(path.join(wiki, 'topics'), { recursive: true });
  writeFileSync(path.join(wiki, 'topics', 'terraform.md'), 'State lives in S3 with locking in DynamoDB.\n');
  writeFileSync(path.join(wiki, 'topics', 'kafka.md'), 'Our kafka brokers: three, one per zone.\n');
  return a.id;
}

describe('a search split across two workers', () => {
  it('returns exactly what one search of every source returns, once a second worker is up', async () => {
    t = openTestEngine();
    const sessionId = await seed(t);
    const reader = openLaneReader(t.engine.paths.db);
    const whole = (req: SearchRequest) => runReadTask(reader, t!.engine.paths.wiki, { task: 'search', args: req });
    const requests = QUERIES.flatMap((query) =>
      [1, 3, 8].map((limit): SearchRequest => ({ sessionId, query, limit, sources: ['facts', 'wiki', 'dialogue'] })),
    );
    lane = createReadLane({ dbPath: t.engine.paths.db, wikiDir: t.engine.paths.wiki, size: 2, splitSearch: true });
    // The first searches run whole on one worker and start the second; bounded: each waits for an answer.
    for (let i = 0; i < 200 && lane.splitSearches() === 0; i++) {
      expect(await lane.search(requests[i % requests.length]!)).toEqual(whole(requests[i % requests.length]!));
    }
    expect(lane.splitSearches()).toBeGreaterThan(0);
    expect(lane.workers()).toBe(2);
    for (const req of requests) expect(await lane.search(req)).toEqual(whole(req));
    expect(requests.some((req) => (whole(req) as SearchHit[]).length > 1)).toBe(true);
    // Sources of one half only, and searches that overlap, run whole: same answers.
    const before = lane.splitSearches();
    expect(await lane.search({ ...requests[0]!, sources: ['dialogue'] })).toEqual(
      whole({ ...requests[0]!, sources: ['dialogue'] }),
    );
    const together = await Promise.all(requests.map((req) => lane!.search(req)));
    expect(together).toEqual(requests.map(whole));
    expect(lane.splitSearches()).toBeLessThan(before + requests.length);
    reader.close();
  });

  it('never splits when told not to, and keeps to one worker', async () => {
    t = openTestEngine();
    const sessionId = await seed(t);
    lane = createReadLane({ dbPath: t.engine.paths.db, wikiDir: t.engine.paths.wiki, size: 2, splitSearch: false });
    for (let i = 0; i < 20; i++) {
      await lane.search({
        sessionId,
        query: QUERIES[i % QUERIES.length]!,
        limit: 8,
        sources: ['facts', 'wiki', 'dialogue'],
      });
    }
    expect(lane.splitSearches()).toBe(0);
    expect(lane.workers()).toBe(1);
  });
});

describe('mergeSearchParts', () => {
  const hit = (ref: string, score: number): SearchHit => ({
    source: 'fact',
    ref,
    title: ref,
    snippet: ref,
    score,
    citation: {},
  });
  it('sorts by score then ref, keeps the first `limit` and rounds scores only at the end', () => {
    const merged = mergeSearchParts(
      [
        [hit('fact:b', 0.3333333333), hit('fact:c', 0.1)],
        [hit('message:a', 0.3333333333), hit('fact:a', 0.33333334)],
      ],
      3,
    );
    expect(merged.map((h) => [h.ref, h.score])).toEqual([
      ['fact:a', 0.333333],
      ['fact:b', 0.333333],
      ['message:a', 0.333333],
    ]);
  });
});
