/**
 * What a forget costs after its transaction, on a large store: the disk scrub (purge the fact
 * index rows, merge every FTS5 segment that holds a tombstone, truncate the WAL) and the wiki
 * clean-up over a wiki of Dream pages. Side by side with the old one-shot path (purge + WAL
 * truncation only, which left the forgotten terms in the index segments). Prints figures; asserts
 * nothing.
 *
 *   FORGET_BENCH_FACTS (default 1,000,000)  FORGET_BENCH_MESSAGES (default 500,000)
 *   FORGET_BENCH_PAGES (default 1,000)
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openTestEngine, tempHome } from '../helpers/home';
import { openWriter, truncateWal, writeTx, type Db } from '../../src/main/store/db';
import { insertFactForSeeding } from '../../src/main/store/facts';
import { evidenceSessionRef } from '../../src/main/store/evidence-sessions';
import { newId } from '../../src/shared/ids';
import { mergeStep, purgeStep, RECALL_INDEXES } from '../../src/main/store/recall-index';
import { forgetSession } from '../../src/main/memory/forget';
import { planWikiForget, cleanWikiAfterForget } from '../../src/main/dream/forget-pages';
import { sessionSourceSlug } from '../../src/main/dream/source-page';
import { runBench } from './bench-main';

const sourcePageStem = (id: string) => sessionSourceSlug(id);
const sourcePagePath = (id: string) => `sources/${sessionSourceSlug(id)}.md`;

const FACTS = Number(process.env.FORGET_BENCH_FACTS ?? 1_000_000);
const MESSAGES = Number(process.env.FORGET_BENCH_MESSAGES ?? 500_000);
const PAGES = Number(process.env.FORGET_BENCH_PAGES ?? 1_000);
const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'.split(
  ' ',
);
const word = (i: number) => WORDS[i % WORDS.length]! + (i % 997);

function seedStore(db: Db, victim: string): void {
  const sessions: string[] = [];
  writeTx(db, () => {
    const add = db.prepare(
      `INSERT INTO sessions (id, kind, project_id, created_at, updated_at) VALUES (?, 'top-level', ?, 1, 1)`,
    );
    for (let i = 0; i < 2_000; i++) {
      const id = newId();
      sessions.push(id);
      add.run(id, `p${i % 200}`);
    }
    add.run(victim, 'p0');
  });
  for (let start = 0; start < FACTS; start += 10_000) {
    writeTx(db, () => {
      for (let i = start; i < Math.min(FACTS, start + 10_000); i++) {
        insertFactForSeeding(db, {
          id: newId(),
          scope: 'project',
          scopeKey: `p${i % 200}`,
          kind: 'fact',
          text: `Fact ${i} says ${word(i)} ${word(i * 7)} ${word(i * 13)} near port ${i % 5000}`,
          confidence: 'medium',
          reinforcement: 1,
          origin: 'extraction',
          requestedScope: null,
          coercionReason: null,
          firstSeenAt: 1,
          lastSeenAt: 1,
          updatedAt: 1,
        });
      }
    });
  }
  const message = db.prepare(
    `INSERT INTO session_messages (id, session_id, seq, role, content, created_at) VALUES (?, ?, ?, 'user', ?, ?)`,
  );
  for (let start = 0; start < MESSAGES; start += 10_000) {
    writeTx(db, () => {
      for (let i = start; i < Math.min(MESSAGES, start + 10_000); i++) {
        message.run(
          newId(),
          sessions[i % sessions.length]!,
          Math.floor(i / sessions.length) + 1,
          `Message ${i} about ${word(i)} and ${word(i * 3)}`,
          i,
        );
      }
    });
  }
}

/** The engine's merge, to completion: returns the time, the steps and the longest step. */
function mergeAll(db: Db): { ms: number; steps: number; longest: number } {
  const t0 = performance.now();
  let steps = 0;
  let longest = 0;
  for (const table of RECALL_INDEXES) {
    for (;;) {
      const s0 = performance.now();
      const worked = mergeStep(db, table);
      longest = Math.max(longest, performance.now() - s0);
      steps++;
      if (!worked) break;
    }
  }
  return { ms: performance.now() - t0, steps, longest };
}

const leftover = (file: string, marker: string) =>
  [file, `${file}-wal`].filter(existsSync).some((f) => readFileSync(f).includes(marker));

/** The wiki clean-up over PAGES Dream pages of 20 anchored bullets, one page in `every` citing the session. */
async function wikiCleanUp(label: string, every: number): Promise<void> {
  const t = openTestEngine();
  const doomed = newId();
  const other = newId();
  const cites = (p: number) =>
    p % every === 0 ? [sourcePageStem(doomed), sourcePageStem(other)] : [sourcePageStem(other)];
  const pages = Array.from({ length: PAGES }, (_, p) => ({
    path: `topics/group-${p}.md`,
    content: [
      '---',
      `description: Group ${p}`,
      'updated: 2026-01-01',
      `sources: [${cites(p).join(', ')}]`,
      'scopes: [project:p0]',
      'dream_group: project:p0/fact',
      '---',
      `# Group ${p}`,
      '',
      '## Facts',
      '',
      ...Array.from(
        { length: 20 },
        (_, i) =>
          `- Fact ${p}-${i} about ${word(p * 20 + i)} _(fact · medium · project p0 · 2 sessions)_ — ${cites(p)
            .map((c) => `[[${c}]]`)
            .join(' ')} <!-- fact:${newId()} -->`,
      ),
      '',
    ].join('\n'),
  }));
  await t.engine.wiki.writeMany([
    ...pages,
    { path: sourcePagePath(doomed), content: `---\nsession: ${doomed}\n---\n# S\n` },
  ]);
  let t0 = performance.now();
  const plan = planWikiForget(t.engine.wiki, {
    sessionIds: [doomed],
    factIds: [],
    factTexts: ['never written anywhere'],
  });
  const planMs = performance.now() - t0;
  t0 = performance.now();
  const done = await cleanWikiAfterForget(t.engine.wiki, { sessionIds: [doomed], factIds: [] });
  const cleanMs = performance.now() - t0;
  console.log(
    `wiki clean-up over ${PAGES + 1} pages, ${label}: preview ${planMs.toFixed(0)} ms; clean-up ${cleanMs.toFixed(0)} ms ` +
      `(${done.changes.length} pages changed, ${plan.mentions.length} mentions)`,
  );
  await t.close();
}

async function main() {
  const home = tempHome('evoflux-forget-bench-');
  const file = path.join(home.dir, 'memory.db');
  const victim = newId();
  const db = openWriter(file);
  let t0 = performance.now();
  seedStore(db, victim);
  console.log(`seeded ${FACTS} facts and ${MESSAGES} messages in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  mergeAll(db); // the steady state: maintenance has merged the indexes after the bulk load
  const m = db.prepare(
    `INSERT INTO session_messages (id, session_id, seq, role, content, created_at) VALUES (?, ?, ?, 'user', ?, 9)`,
  );
  writeTx(db, () => {
    for (let i = 0; i < 100; i++) m.run(newId(), victim, i + 1, `Zanzibarite ledger entry ${i}`);
    for (let i = 0; i < 50; i++) {
      db.prepare(
        `INSERT INTO memory_fact_evidence_rows (fact_seq, session_ref, message_id, created_at, last_seen_at) VALUES (?, ?, NULL, 1, 1)`,
      ).run(
        insertFactForSeeding(db, {
          id: newId(),
          scope: 'project',
          scopeKey: 'p0',
          kind: 'fact',
          text: `Zanzibarite clause ${i} stays private`,
          confidence: 'medium',
          reinforcement: 1,
          origin: 'manual',
          requestedScope: null,
          coercionReason: null,
          firstSeenAt: 1,
          lastSeenAt: 1,
          updatedAt: 1,
        }),
        evidenceSessionRef(db, victim),
      );
    }
  });
  mergeAll(db);
  truncateWal(db);
  db.close();
  const copy = path.join(home.dir, 'baseline.db');
  copyFileSync(file, copy);

  for (const [label, target, scrub] of [
    ['old one-shot path (purge + WAL truncate)', copy, false],
    ['disk scrub (purge + merge every index + WAL truncate)', file, true],
  ] as const) {
    const w = openWriter(target);
    t0 = performance.now();
    const r = forgetSession(w, victim, { dryRun: false });
    const forgetMs = performance.now() - t0;
    t0 = performance.now();
    while (purgeStep(w));
    const purgeMs = performance.now() - t0;
    const merged = scrub ? mergeAll(w) : { ms: 0, steps: 0, longest: 0 };
    t0 = performance.now();
    truncateWal(w);
    const truncMs = performance.now() - t0;
    w.close();
    console.log(
      `${label}: forget ${forgetMs.toFixed(0)} ms (${r.deleted.length} facts, ${r.messagesRemoved} messages); ` +
        `purge ${purgeMs.toFixed(0)} ms; merge ${merged.ms.toFixed(0)} ms in ${merged.steps} steps (longest ${merged.longest.toFixed(0)} ms); ` +
        `truncate ${truncMs.toFixed(0)} ms; forgotten term still on disk: ${leftover(target, 'anzibarite') ? 'YES' : 'no'}`,
    );
  }

  for (const [label, every] of [
    ['typical: 1 page in 100 cites the session', 100],
    ['worst case: every page cites the session', 1],
  ] as const) {
    await wikiCleanUp(label, every);
  }
  home.cleanup();
}

runBench(main, { exit: true });
