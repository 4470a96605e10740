import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../src/main/store/migrate';
import { migrations } from '../../src/main/store/migrations';
import { openWriter, writeTx, type Db } from '../../src/main/store/db';
import { getFact, insertFactForSeeding, recordFact } from '../../src/main/store/facts';
import { STORED_CODES } from '../../src/main/store/fact-codes';
import { forgetSession } from '../../src/main/memory/forget';
import { factIndexTerms, factToken } from '../../src/main/text/fact-index';
import { oldFactKey, oldScopeId } from '../helpers/old-store';
import { tempHome } from '../helpers/home';

const S1 = '01900000-0000-7000-8000-000000000001';
const S2 = '01900000-0000-7000-8000-000000000002';
const S3 = '01900000-0000-7000-8000-000000000003';
const F_SHARED = '01900000-0000-7000-8000-0000000000a1';
const F_PINNED = '01900000-0000-7000-8000-0000000000a2';
const F_USER = '01900000-0000-7000-8000-0000000000a3';
const F_GONE = '01900000-0000-7000-8000-0000000000a4';

/** A fact as schema 102 stored it: text enums, scope columns on the row, a 52-bit key. */
function writeV102Fact(
  db: Database.Database,
  f: { id: string; scope: string; key: string; kind: string; text: string; confidence: string; origin: string },
): number {
  const scopeId = oldScopeId(db, f.scope, f.key);
  const seq = Number(
    db
      .prepare(
        `INSERT INTO memory_facts (id, scope_id, scope, scope_key, kind, text, normalized_key, confidence, reinforcement,
           origin, first_seen_at, last_seen_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 10, 10, 10)`,
      )
      .run(f.id, scopeId, f.scope, f.key, f.kind, f.text, oldFactKey(f.text), f.confidence, f.origin).lastInsertRowid,
  );
  db.prepare('INSERT INTO memory_facts_fts (rowid, terms) VALUES (?, ?)').run(seq, factIndexTerms(scopeId, f.text));
  db.prepare('UPDATE memory_scopes SET facts = facts + 1 WHERE id = ?').run(scopeId);
  return seq;
}

function writeVersion102Store(file: string): void {
  const db = new Database(file);
  db.pragma('foreign_keys = ON');
  migrate(
    db,
    migrations.filter((m) => m.version <= 102),
  );
  const session = db.prepare(
    `INSERT INTO sessions (id, kind, project_id, title, created_at, updated_at) VALUES (?, 'top-level', 'p1', ?, 1, 1)`,
  );
  [S1, S2, S3].forEach((id, i) => session.run(id, `session ${i + 1}`));
  db.prepare(
    `INSERT INTO session_messages (id, session_id, seq, role, content, created_at) VALUES ('m1', ?, 1, 'user', 'use pnpm', 5)`,
  ).run(S1);
  const evidence = db.prepare(
    'INSERT INTO memory_fact_evidence (fact_seq, session_id, message_id, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)',
  );
  const base = { scope: 'project', key: 'p1', origin: 'extraction' };
  const shared = writeV102Fact(db, {
    ...base,
    id: F_SHARED,
    kind: 'convention',
    text: 'Use pnpm for installs',
    confidence: 'high',
  });
  evidence.run(shared, S1, 'm1', 11, 12);
  evidence.run(shared, S2, null, 13, 14);
  const pinned = writeV102Fact(db, {
    ...base,
    id: F_PINNED,
    kind: 'constraint',
    text: 'Never push to main',
    confidence: 'low',
    origin: 'manual',
  });
  evidence.run(pinned, S2, null, 15, 15);
  const user = writeV102Fact(db, {
    id: F_USER,
    scope: 'user',
    key: '',
    kind: 'preference',
    text: 'Prefers short answers',
    confidence: 'medium',
    origin: 'legacy_note',
  });
  evidence.run(user, S1, null, 16, 16);
  // The newest fact is forgotten: its seq must never be handed out again.
  writeV102Fact(db, { ...base, id: F_GONE, kind: 'fact', text: 'A forgotten fact', confidence: 'medium' });
  db.prepare('DELETE FROM memory_facts WHERE id = ?').run(F_GONE);
  db.prepare(
    'UPDATE memory_facts SET reinforcement = (SELECT count(*) FROM memory_fact_evidence e WHERE e.fact_seq = seq)',
  ).run();
  db.prepare("UPDATE memory_facts SET recall = 'pinned' WHERE id = ?").run(F_PINNED);
  db.prepare(
    "INSERT INTO memory_fact_history (fact_seq, changed_at, actor, change, previous_recall) VALUES (?, 20, 'test', 'pin', 'normal')",
  ).run(pinned);
  db.prepare('INSERT INTO recall_row_facts (fact_seq, message_id) VALUES (?, ?)').run(shared, 'm1');
  db.close();
}

const FACT_COLUMNS = `seq, id, scope_id, scope, scope_key, kind, text, confidence, reinforcement, origin, requested_scope,
  coercion_reason, first_seen_at, last_seen_at, updated_at, recall`;

const snapshot = (db: Database.Database) => ({
  facts: db.prepare(`SELECT ${FACT_COLUMNS} FROM memory_facts ORDER BY seq`).all(),
  evidence: db
    .prepare(
      'SELECT fact_seq, session_id, message_id, created_at, last_seen_at FROM memory_fact_evidence ORDER BY fact_seq, session_id',
    )
    .all(),
  history: db.prepare('SELECT * FROM memory_fact_history ORDER BY id').all(),
  recallRows: db.prepare('SELECT * FROM recall_row_facts').all(),
  scopes: db.prepare('SELECT * FROM memory_scopes ORDER BY id').all(),
});

const indexed = (db: Db, scopeId: number, word: string) =>
  db.prepare('SELECT rowid FROM memory_facts_fts WHERE memory_facts_fts MATCH ?').all(`"${factToken(scopeId, word)}"`);

describe('upgrading a store to compact fact rows and evidence (migrations 103, 104)', () => {
  const homes: { cleanup(): void }[] = [];
  afterEach(() => homes.splice(0).forEach((h) => h.cleanup()));
  const storeFile = () => {
    const h = tempHome();
    homes.push(h);
    return path.join(h.dir, 'memory.db');
  };

  it('keeps every fact, its evidence, history and recall links exactly, and dedupe, forget and the index still work', () => {
    const file = storeFile();
    writeVersion102Store(file);
    const raw = new Database(file, { readonly: true });
    const before = snapshot(raw);
    const highWater = (
      raw.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'memory_facts'").get() as { seq: number }
    ).seq;
    raw.close();
    expect(before.facts).toHaveLength(3);
    expect(before.evidence).toHaveLength(4);

    const db = openWriter(file);
    expect(schemaVersion(db)).toBe(Math.max(...migrations.map((m) => m.version)));
    expect(snapshot(db)).toEqual(before);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.prepare('SELECT count(*) AS n FROM memory_evidence_sessions').get()).toEqual({ n: 2 });
    expect(
      db
        .prepare(
          "SELECT count(*) AS n FROM pragma_table_info('memory_fact_rows') WHERE name IN ('status', 'scope_key')",
        )
        .get(),
    ).toEqual({ n: 0 });

    // The same text from a third session is the same fact, one more supporting session.
    const shared = getFact(db, F_SHARED)!;
    const scopeId = (before.facts[0] as { scope_id: number }).scope_id;
    const again = writeTx(db, () =>
      recordFact(
        db,
        {
          text: 'use PNPM for installs',
          kind: 'convention',
          confidence: 'medium',
          origin: 'extraction',
          target: { scope: 'project', key: 'p1', coercion: null },
          sessionId: S3,
          messageId: null,
        },
        50,
      ),
    );
    expect(again).toMatchObject({ created: false, reinforced: true });
    expect(again.fact).toMatchObject({ id: F_SHARED, reinforcement: 3, confidence: 'high', updatedAt: 50 });
    expect(indexed(db, scopeId, 'pnpm')).toEqual([{ rowid: (before.facts[0] as { seq: number }).seq }]);

    // A new fact never reuses the forgotten fact's seq.
    const fresh = writeTx(db, () =>
      recordFact(
        db,
        {
          text: 'Builds run in CI',
          kind: 'fact',
          confidence: 'medium',
          origin: 'manual',
          target: { scope: 'project', key: 'p1', coercion: null },
          sessionId: S3,
          messageId: null,
        },
        60,
      ),
    );
    const freshSeq = (db.prepare('SELECT seq FROM memory_facts WHERE id = ?').get(fresh.fact.id) as { seq: number })
      .seq;
    expect(freshSeq).toBeGreaterThan(highWater);

    // Forgetting S2 deletes the fact only it supported and every row naming S2.
    const report = forgetSession(db, S2, { dryRun: false });
    expect(report.deleted.map((d) => d.id)).toEqual([F_PINNED]);
    expect(getFact(db, F_PINNED)).toBeUndefined();
    expect(getFact(db, F_SHARED)?.reinforcement).toBe(2);
    expect(db.prepare('SELECT count(*) AS n FROM memory_fact_evidence WHERE session_id = ?').get(S2)).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM memory_evidence_sessions WHERE session_id = ?').get(S2)).toEqual({
      n: 0,
    });
    expect(db.prepare('SELECT count(*) AS n FROM memory_fact_history').get()).toEqual({ n: 0 });
    // The forgotten fact's index row is queued for purging (beside the one forgotten before the upgrade).
    const pinnedSeq = (before.facts[1] as { seq: number }).seq;
    expect(db.prepare('SELECT rowid FROM memory_fact_index_purge WHERE rowid = ?').get(pinnedSeq)).toEqual({
      rowid: pinnedSeq,
    });
    expect(shared.reinforcement).toBe(2);
    db.close();
  });

  it('reads back every kind, confidence and origin it stores', () => {
    const file = storeFile();
    const db = openWriter(file);
    const combos = STORED_CODES.kind.flatMap((kind, i) =>
      STORED_CODES.origin.map((origin, j) => ({
        kind,
        origin,
        confidence: STORED_CODES.confidence[(i + j) % STORED_CODES.confidence.length]!,
      })),
    );
    writeTx(db, () =>
      combos.forEach((c, i) =>
        insertFactForSeeding(db, {
          id: `fact-${i}`,
          scope: 'project',
          scopeKey: 'p1',
          text: `Fact number ${i}`,
          reinforcement: 1,
          requestedScope: null,
          coercionReason: null,
          firstSeenAt: 1,
          lastSeenAt: 1,
          updatedAt: 1,
          ...c,
        }),
      ),
    );
    combos.forEach((c, i) => expect(getFact(db, `fact-${i}`)).toMatchObject(c));
    db.close();
  });
});
