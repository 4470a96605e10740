import { afterEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { expectExactScopeCounts } from '../helpers/scope-counts';
import { writeTx } from '../../src/main/store/db';
import { recordFact, recordFacts, type Observation } from '../../src/main/store/facts';
import { coerceScope, resolveScopes } from '../../src/main/memory/scope';
import type { Confidence, FactKind, Scope } from '../../src/shared/domain';

/**
 * recordFacts, the bulk path (facts.addBatch, extraction windows, legacy import), looks scopes and
 * session refs up once per batch and counts each scope's new facts once at its end: it must leave
 * a store exactly as recordFact one observation at a time does.
 */
const engines: TestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((t) => t.close()));
});

interface Step {
  session: number;
  text: string;
  scope: Scope;
  kind: FactKind;
  confidence: Confidence;
}

/** Observations over three sessions of two projects: new facts, the same text again, other sessions' evidence, raised confidence. */
function steps(): Step[] {
  const out: Step[] = [];
  const kinds: FactKind[] = ['decision', 'fact', 'preference', 'convention'];
  const scopes: Scope[] = ['project', 'session', 'user', 'project'];
  const confidences: Confidence[] = ['low', 'medium', 'high'];
  for (let i = 0; i < 120; i++) {
    const n = i % 40;
    out.push({
      session: i % 3,
      text: i % 5 === 0 ? `  Fact NUMBER ${n}, again ` : `Fact number ${n} again`,
      scope: scopes[n % 4]!,
      kind: kinds[n % 4]!,
      confidence: confidences[(i * 5) % 3]!,
    });
  }
  return out;
}

async function storeWith(write: (t: TestEngine, observations: Observation[]) => unknown[]) {
  const t = openTestEngine();
  engines.push(t);
  const sessions = [
    await t.run('sessions.create', { projectId: 'alpha' }),
    await t.run('sessions.create', { projectId: 'alpha' }),
    await t.run('sessions.create', { projectId: 'bravo' }),
  ].map((s) => resolveScopes(t.engine.db, s.id));
  const observations = steps().map((s): Observation => ({
    text: s.text,
    kind: s.kind,
    confidence: s.confidence,
    origin: 'extraction',
    target: coerceScope(sessions[s.session]!, s.scope, s.kind),
    sessionId: sessions[s.session]!.session.id,
    messageId: null,
  }));
  const outcomes = (write(t, observations) as ReturnType<typeof recordFact>[]).map((r) => [
    r.created,
    r.reinforced,
    r.unchanged,
    r.fact.scope,
    r.fact.text,
    r.fact.confidence,
    r.fact.reinforcement,
  ]);
  // Session ids differ between the two stores: name each session by its place instead.
  const place = new Map(sessions.map((s, i) => [s.session.id, `session ${i}`]));
  const facts = (
    t.engine.db
      .prepare(
        `SELECT scope, scope_key AS key, text, confidence, reinforcement,
                (SELECT group_concat(e.session_id) FROM memory_fact_evidence e WHERE e.fact_seq = f.seq) AS evidence
         FROM memory_facts f ORDER BY seq`,
      )
      .all() as { key: string; evidence: string }[]
  ).map((f) => ({
    ...f,
    key: place.get(f.key) ?? f.key,
    evidence: f.evidence
      .split(',')
      .map((id) => place.get(id))
      .sort(),
  }));
  return { t, outcomes, facts };
}

describe('recordFacts', () => {
  it('leaves the store as recordFact one at a time does: outcomes, rows, evidence and scope counts', async () => {
    const single = await storeWith((t, observations) =>
      writeTx(t.engine.db, () => observations.map((o) => recordFact(t.engine.db, o, t.clock.now()))),
    );
    const batched = await storeWith((t, observations) => {
      const results = [];
      // Batches of 7 across transactions, so scopes and refs are both created in a batch and found by a later one.
      for (let at = 0; at < observations.length; at += 7) {
        const batch = observations.slice(at, at + 7);
        results.push(...writeTx(t.engine.db, () => recordFacts(t.engine.db, batch, t.clock.now())));
      }
      return results;
    });
    expect(batched.outcomes).toEqual(single.outcomes);
    expect(batched.facts).toEqual(single.facts);
    expect(single.outcomes.filter(([created]) => created).length).toBeGreaterThan(30);
    expect(single.outcomes.filter(([, reinforced]) => reinforced).length).toBeGreaterThan(10);
    expectExactScopeCounts(single.t.engine.db);
    expectExactScopeCounts(batched.t.engine.db);
  });

  it('a batch that fails part-way leaves nothing behind once its transaction rolls back', async () => {
    const { t } = await storeWith((t, observations) =>
      writeTx(t.engine.db, () => recordFacts(t.engine.db, observations.slice(0, 20), t.clock.now())),
    );
    const before = t.engine.db.prepare('SELECT count(*) AS n FROM memory_facts').get();
    const session = resolveScopes(t.engine.db, (await t.run('sessions.create', { projectId: 'alpha' })).id);
    const good = (text: string): Observation => ({
      text,
      kind: 'fact',
      confidence: 'medium',
      origin: 'extraction',
      target: coerceScope(session, 'project', 'fact'),
      sessionId: session.session.id,
      messageId: null,
    });
    expect(() =>
      writeTx(t.engine.db, () =>
        recordFacts(
          t.engine.db,
          [good('Brand new one'), good('Brand new two'), { ...good('Bad'), kind: 'bogus' as FactKind }],
          t.clock.now(),
        ),
      ),
    ).toThrow(/kind/);
    expect(t.engine.db.prepare('SELECT count(*) AS n FROM memory_facts').get()).toEqual(before);
    expectExactScopeCounts(t.engine.db);
  });
});
