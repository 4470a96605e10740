/**
 * The ranking rules of memory_search over dialogue, on synthetic conversations written here: a
 * rare word beats a name-only match, question words never decide a hit, years stay whole, a turn
 * answering the one before it is found through it, candidates come rarest term first, the scope
 * is applied inside the index, and every dialogue hit carries its date.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { testResources, type TestEngine } from '../helpers/home';
import { findCandidates, taggedLookup } from '../../src/main/memory/recall/fts';
import { scopeTag } from '../../src/main/store/index-tags';
import { scopeSessions } from '../../src/main/store/dialogue-queries';
import { openLaneReader } from '../../src/main/workers/read-lane-tasks';
import type { SessionRecord } from '../../src/shared/schemas';

const resources = testResources();
afterEach(() => resources.release());

const DAY = 86_400_000;
const START = Date.UTC(2023, 4, 8, 13, 56);

async function conversation(t: TestEngine, projectId: string, sessions: [string, string][][]) {
  const ids = new Map<string, string>();
  for (const [i, turns] of sessions.entries()) {
    const at = START + i * 7 * DAY;
    const s = await t.run('sessions.create', { projectId, title: `Chat ${i + 1}`, createdAt: at });
    for (const [j, [role, content]] of turns.entries()) {
      const m = await t.run('messages.add', {
        sessionId: s.id,
        role: role as 'user' | 'assistant',
        content,
        createdAt: at + j * 1000,
      });
      ids.set(content, m.id);
    }
  }
  const asker = await t.run('sessions.create', { projectId });
  const ask = async (query: string) =>
    (await t.run('memory.search', { sessionId: asker.id, query, limit: 10, sources: ['dialogue'] })).results;
  const textOf = (messageId: string | undefined) => [...ids].find(([, id]) => id === messageId)?.[0];
  return { ids, ask, textOf };
}

/** Small talk in which both names come back in every session, as they do between two people. */
const smallTalk = (i: number): [string, string][] => [
  ['user', `Hey Orlen, good to hear from you again, week ${i}!`],
  ['assistant', `Hi Brisa! Thanks, Brisa, it has been a busy week ${i} here.`],
  ['user', `Thanks Orlen, same here, lots of errands and cooking.`],
  ['assistant', `Sounds good Brisa, talk soon and enjoy the weekend.`],
];

describe('memory_search ranking over dialogue', () => {
  it('a rare word beats a match on a participant name alone', async () => {
    const t = resources.engine();
    const evidence = 'I finally bought a secondhand kayak at the harbour market and took it out twice.';
    const sessions = Array.from({ length: 6 }, (_, i) => smallTalk(i + 1));
    sessions[3]!.push(['user', evidence]);
    const c = await conversation(t, 'names', sessions);
    const hits = await c.ask('When did Brisa buy the kayak?');
    expect(c.textOf(hits[0]?.citation.messageId)).toBe(evidence);
  });

  it('a question word never decides a hit', async () => {
    const t = resources.engine();
    const wordy = 'When was that? What did you do, and how was it, and when did it happen, who was there?';
    const evidence = 'The marathon along the river took me four hours.';
    const c = await conversation(t, 'questions', [
      [
        ['assistant', wordy],
        ['user', 'Ok.'],
        ['user', evidence],
      ],
    ]);
    const hits = await c.ask('When was the marathon, and what was it like?');
    const texts = hits.map((h) => c.textOf(h.citation.messageId));
    expect(texts[0]).toBe(evidence);
    // The wordy turn holds no content word of the question: it is never a hit on its own account.
    expect(texts).not.toContain(wordy);
  });

  it('years and other numbers are kept whole', async () => {
    const t = resources.engine();
    // One session each, so no turn comes back as another's neighbour.
    const c = await conversation(t, 'years', [
      [['user', 'We moved to the coast in 2021.']],
      [['user', 'The bakery opened in 2022.']],
      [['user', 'Flat 202 has the blue door.']],
    ]);
    const hits = await c.ask('what opened 2022');
    expect(hits.map((h) => c.textOf(h.citation.messageId))).toEqual(['The bakery opened in 2022.']);
  });

  it('a turn that answers the one before it is found through its neighbour', async () => {
    const t = resources.engine();
    const question = 'Did you ever finish the pottery workshop in the old mill?';
    const answer = 'Yes! Last Tuesday, and I kept the lopsided bowl.';
    const c = await conversation(t, 'context', [[['assistant', question], ['user', answer], ...smallTalk(1)]]);
    const hits = await c.ask('When did she finish the pottery workshop?');
    const texts = hits.map((h) => c.textOf(h.citation.messageId));
    expect(texts.slice(0, 2)).toEqual(expect.arrayContaining([question, answer]));
  });

  it('every dialogue hit carries the date its message was written', async () => {
    const t = resources.engine();
    const c = await conversation(t, 'dates', [
      [['user', 'The glacier hike was cold.']],
      [['user', 'Another glacier hike, warmer.']],
    ]);
    const hits = await c.ask('glacier hike');
    expect(hits.map((h) => h.date).sort()).toEqual([
      new Date(START).toISOString(),
      new Date(START + 7 * DAY).toISOString(),
    ]);
  });

  it("another project's many rows never crowd out this project's one (scope applied inside the index)", async () => {
    const t = resources.engine();
    const other = await conversation(t, 'crowd', [
      Array.from({ length: 150 }, (_, i): [string, string] => ['user', `zeppelin note number ${i}`]),
    ]);
    const mine = await conversation(t, 'quiet', [[['user', 'A zeppelin flew over the farm.']]]);
    const hits = await mine.ask('zeppelin');
    expect(hits.map((h) => mine.textOf(h.citation.messageId))).toEqual(['A zeppelin flew over the farm.']);
    expect((await other.ask('zeppelin')).length).toBe(10);
  });
});

describe('rarest-first candidates', () => {
  it('the rare term brings all its rows before a common term fills the budget', async () => {
    const t = resources.engine();
    await conversation(t, 'rare', [
      [
        ...Array.from({ length: 40 }, (_, i): [string, string] => ['user', `weather report ${i} for the valley`]),
        ['user', 'weather with a narwhal sighting'],
        ['user', 'a second narwhal, no weather talk'],
      ],
    ]);
    const index = {
      table: 'session_messages_fts',
      tagColumn: 'tags',
      textColumn: 'content',
      newestFirst: 'ASC',
    } as const;
    const options = { perTermCap: 10, deepCap: 20, maxTerms: 8, budget: 4 };
    const found = findCandidates(
      t.engine.db,
      index,
      taggedLookup(index, [scopeTag('p', 'rare')]),
      ['weather', 'narwhal'],
      options,
    );
    expect(found.termHits.get('narwhal')).toBe(2); // below the cap: its exact frequency here
    expect(found.termHits.get('weather')).toBe(10); // capped
    expect([...found.complete]).toEqual(['narwhal']);
    const narwhalRows = found.termRows.get('narwhal')!;
    // The rare term's rows come first; the common term only fills the rest of the budget.
    expect(found.rowids.slice(0, 2)).toEqual(narwhalRows);
    expect(found.rowids).toHaveLength(4);
  });
});

describe("the scope's sessions behind dialogue statistics", () => {
  it('are read once per change of the store, and a session created since counts at once', async () => {
    const t = resources.engine();
    const { ask } = await conversation(t, 'alpha', [[['user', 'The ingest shards moved to zebra hosts.']]]);
    const reader = openLaneReader(t.engine.paths.db);
    try {
      const owner = (await t.run('sessions.create', { projectId: 'alpha' })) as SessionRecord;
      const first = scopeSessions(reader, owner);
      expect(scopeSessions(reader, owner)).toBe(first); // nothing changed: the same answer, not read again
      await t.run('sessions.create', { projectId: 'alpha' }); // another connection commits
      const second = scopeSessions(reader, owner);
      expect(second).not.toBe(first);
      expect(second.length).toBe(first.length + 1);
      expect((await ask('zebra hosts'))[0]?.snippet).toContain('zebra hosts');
      // On a connection that writes itself, its own commits count as changes too.
      const own = scopeSessions(t.engine.db, owner);
      await t.run('sessions.create', { projectId: 'alpha' });
      expect(scopeSessions(t.engine.db, owner).length).toBe(own.length + 1);
    } finally {
      reader.close();
    }
  });
});
