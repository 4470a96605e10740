import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../src/main/store/migrate';
import { migrations } from '../../src/main/store/migrations';
import { writeTx } from '../../src/main/store/db';
import { listEvidence, recordFact } from '../../src/main/store/facts';
import { foldForKey } from '../../src/main/text/fact-text';
import { testResources } from '../helpers/home';

/** The dedup key as stores before migration 50 wrote it: 128 bits of sha256 of the folded text, hex. */
const oldKey = (text: string) => createHash('sha256').update(foldForKey(text)).digest('hex').slice(0, 32);

const S1 = '01900000-0000-7000-8000-000000000001';
const S2 = '01900000-0000-7000-8000-000000000002';
const S3 = '01900000-0000-7000-8000-000000000003';
const S4 = '01900000-0000-7000-8000-000000000004';
const F_SHARED = '01900000-0000-7000-8000-0000000000a1';
const F_SESSION = '01900000-0000-7000-8000-0000000000a2';
const F_USER = '01900000-0000-7000-8000-0000000000a3';
const F_GONE = '01900000-0000-7000-8000-0000000000a4';

/** A memory.db at schema 41 (the last layout with text fact keys), filled the way that app wrote it. */
function writeVersion41Store(file: string): void {
  const db = new Database(file);
  db.pragma('foreign_keys = ON');
  migrate(
    db,
    migrations.filter((m) => m.version <= 41),
  );
  const session = db.prepare(
    `INSERT INTO sessions (id, kind, project_id, title, created_at, updated_at) VALUES (?, 'top-level', ?, ?, 1, 1)`,
  );
  session.run(S1, 'p1', 'one');
  session.run(S2, 'p1', 'two');
  session.run(S3, 'p2', 'three');
  session.run(S4, 'p1', 'four');
  db.prepare(
    `INSERT INTO session_messages (id, session_id, seq, role, content, created_at) VALUES ('m1', ?, 1, 'user', 'use pnpm', 5)`,
  ).run(S1);
  const fact = db.prepare(
    `INSERT INTO memory_facts (id, scope, scope_key, kind, text, normalized_key, confidence, reinforcement, origin,
       first_seen_at, last_seen_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'extraction', ?, ?, ?)`,
  );
  const evidence = db.prepare(
    `INSERT INTO memory_fact_evidence (fact_id, session_id, message_id, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)`,
  );
  fact.run(
    F_SHARED,
    'project',
    'p1',
    'convention',
    'Use pnpm for installs',
    oldKey('Use pnpm for installs'),
    'high',
    2,
    10,
    20,
    20,
  );
  evidence.run(F_SHARED, S1, 'm1', 10, 10);
  evidence.run(F_SHARED, S2, null, 20, 20);
  fact.run(
    F_SESSION,
    'session',
    S1,
    'fact',
    'Alpha deploys on fridays',
    oldKey('Alpha deploys on fridays'),
    'medium',
    1,
    11,
    11,
    11,
  );
  evidence.run(F_SESSION, S1, null, 11, 11);
  fact.run(
    F_USER,
    'user',
    '',
    'preference',
    'Prefers dark mode everywhere',
    oldKey('Prefers dark mode everywhere'),
    'medium',
    1,
    12,
    12,
    12,
  );
  evidence.run(F_USER, S3, null, 12, 12);
  // A forgotten fact whose index purge was still queued when the old app stopped.
  fact.run(
    F_GONE,
    'project',
    'p1',
    'fact',
    'Gamma uses the quokka scheduler',
    oldKey('Gamma uses the quokka scheduler'),
    'low',
    1,
    13,
    13,
    13,
  );
  db.prepare('DELETE FROM memory_facts WHERE id = ?').run(F_GONE);
  expect(db.prepare('SELECT count(*) AS n FROM memory_fact_index_purge').get()).toEqual({ n: 1 });
  db.close();
}

describe('migration 50: integer fact keys', () => {
  const resources = testResources();
  afterEach(() => resources.release());

  it('keeps every fact, its evidence, counts and index, and dedups against the converted keys', async () => {
    const home = resources.home();
    writeVersion41Store(path.join(home, 'memory.db'));
    const t = resources.engine({ home });
    const db = t.engine.db;
    expect(schemaVersion(db)).toBe(Math.max(...migrations.map((m) => m.version)));

    const facts = db
      .prepare('SELECT seq, id, scope, scope_key, text, reinforcement, confidence FROM memory_facts ORDER BY seq')
      .all() as {
      seq: number;
      id: string;
      reinforcement: number;
    }[];
    expect(facts.map((f) => f.id)).toEqual([F_SHARED, F_SESSION, F_USER]);
    expect(facts.map((f) => f.reinforcement)).toEqual([2, 1, 1]);
    expect(listEvidence(db, F_SHARED).map((e) => [e.sessionId, e.messageId])).toEqual([
      [S1, 'm1'],
      [S2, null],
    ]);
    const counts = db.prepare('SELECT scope, scope_key AS key, facts FROM memory_scopes ORDER BY id').all();
    expect(counts).toEqual(
      expect.arrayContaining([
        { scope: 'project', key: 'p1', facts: 1 },
        { scope: 'session', key: S1, facts: 1 },
        { scope: 'user', key: '', facts: 1 },
      ]),
    );
    expect(db.prepare('SELECT count(*) AS n FROM memory_fact_index_purge').get()).toEqual({ n: 0 });
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.exec("INSERT INTO memory_facts_fts(memory_facts_fts) VALUES('integrity-check')");
    const indexed = (word: string) =>
      (
        db.prepare('SELECT rowid FROM memory_facts_fts WHERE memory_facts_fts MATCH ?').all(`"${word}_"*`) as {
          rowid: number;
        }[]
      ).map((r) => r.rowid);
    expect(indexed('pnpm')).toEqual([facts[0]!.seq]);
    expect(indexed('quokka')).toEqual([]);

    // Recall finds the upgraded facts through the rebuilt index, within scope.
    const search = async (sessionId: string, query: string) =>
      (await t.run('memory.search', { sessionId, query, sources: ['facts'] })).results.map((r) => r.snippet);
    expect(await search(S4, 'pnpm installs')).toEqual(['Use pnpm for installs']);
    expect(await search(S3, 'pnpm installs')).toEqual([]);
    expect(await search(S1, 'alpha deploys fridays')).toEqual(['Alpha deploys on fridays']);

    // The converted keys still deduplicate: the same text (any case and spacing) is the same fact.
    const observe = (sessionId: string, text: string) =>
      writeTx(db, () =>
        recordFact(
          db,
          {
            text,
            kind: 'convention',
            confidence: 'medium',
            origin: 'extraction',
            target: { scope: 'project', key: 'p1', coercion: null },
            sessionId,
            messageId: null,
          },
          1_000,
        ),
      );
    const again = observe(S1, 'use  PNPM for installs.');
    expect(again).toMatchObject({ created: false, unchanged: true });
    expect(again.fact.id).toBe(F_SHARED);
    const reinforced = observe(S4, 'Use pnpm for installs');
    expect(reinforced).toMatchObject({ created: false, reinforced: true });
    expect(reinforced.fact.reinforcement).toBe(3);
    expect(reinforced.fact.confidence).toBe('high');

    // New facts take seqs above every upgraded one, and are indexed at once.
    const fresh = observe(S4, 'Beta runs on the zebra gateway');
    expect(fresh.created).toBe(true);
    const freshSeq = db.prepare('SELECT seq FROM memory_facts WHERE id = ?').pluck().get(fresh.fact.id) as number;
    expect(freshSeq).toBeGreaterThan(Math.max(...facts.map((f) => f.seq)));
    expect(indexed('zebra')).toEqual([freshSeq]);
    expect(
      db.prepare("SELECT facts FROM memory_scopes WHERE scope = 'project' AND scope_key = 'p1'").pluck().get(),
    ).toBe(2);
  });
});
