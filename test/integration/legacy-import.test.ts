import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestEngine, tempHome, type TestEngine } from '../helpers/home';
import { runCli } from '../helpers/cli';
import { ManualClock } from '../../src/shared/clock';
import { parseLegacyNotes, sentinelPath } from '../../src/main/memory/legacy-import';

const SAMPLE = path.resolve(__dirname, '../../resources/legacy-notes-sample');
const S1 = '01962a6b-5f3e-7c41-9a2d-3b8e4f7a1c55';
const S2 = '01962b10-2a4c-7e88-8b1f-6c0d2e9a7b33';

const open: TestEngine[] = [];
const homes: { cleanup(): void }[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.engine.close();
  for (const h of homes.splice(0)) h.cleanup();
});
function engineIn(home: string) {
  const t = openTestEngine({ home, clock: new ManualClock() });
  open.push(t);
  return t;
}
const newHome = () => {
  const h = tempHome();
  homes.push(h);
  return h.dir;
};

describe('legacy notes format', () => {
  it('parses the sample: marker blocks only, annotated and plain bullets, headings end a block', () => {
    const day1 = parseLegacyNotes(readFileSync(path.join(SAMPLE, '2026-04-28.md'), 'utf8'));
    const day2 = parseLegacyNotes(readFileSync(path.join(SAMPLE, '2026-04-29.md'), 'utf8'));
    expect(day1.map((b) => [b.sessionId, b.scope, b.kind, b.confidence, b.text])).toEqual([
      [S1, 'project', 'fact', 'medium', 'The billing service is deployed to Fly.io.'],
      [S1, 'project', 'fact', 'medium', 'User wants short answers.'],
      [S1, 'project', 'fact', 'medium', 'Integration tests need the local Postgres container running.'],
      [S2, 'project', 'convention', 'high', 'Commit messages follow Conventional Commits.'],
      [S2, 'user', 'preference', 'high', 'Prefers pnpm over npm.'],
      [S2, 'session', 'decision', 'medium', 'The migration is split into two releases.'],
    ]);
    // 32 hex digits without dashes name the same session; prose and later headings are ignored.
    expect(day2.map((b) => [b.sessionId, b.kind, b.text])).toEqual([
      [S1, 'constraint', 'The public API must stay backwards compatible until v3.'],
      [S1, 'fact', 'The billing service is deployed to Fly.io.'],
    ]);
  });

  it('an invalid marker id clears the block', () => {
    const text = `<!-- evoflux-memory-facts:v1 source=session:${S1} -->\n- kept\n<!-- evoflux-memory-facts:v1 source=session:zzzz -->\n- dropped\n`;
    expect(parseLegacyNotes(text).map((b) => b.text)).toEqual(['kept']);
  });
});

describe('legacy import', () => {
  async function sampleHome(withProject = true) {
    const home = newHome();
    const t = engineIn(home);
    await t.run('sessions.create', {
      id: S1,
      ...(withProject ? { projectId: 'billing' } : { folderId: 'work-folder' }),
    });
    await t.run('sessions.create', { id: S2, workspace: '/tmp/legacy-ws' });
    return t;
  }

  it('imports each bullet as a local fact with evidence at its source session, never user scope', async () => {
    const t = await sampleHome();
    const r = await t.run('import.legacy', { from: SAMPLE });
    expect(r).toMatchObject({
      skipped: false,
      files: 2,
      bullets: 8,
      sessions: 2,
      sessionsMissing: 0,
      facts: 7,
      factsCreated: 7,
      rejected: 0,
    });
    expect(r.sentinel).toBe(sentinelPath(t.engine.paths));
    const all = (await t.run('facts.list', { limit: 100 })).facts;
    expect(all).toHaveLength(7);
    expect(all.every((f) => f.origin === 'legacy_note')).toBe(true);
    expect(all.some((f) => f.scope === 'user')).toBe(false);
    const byText = (text: string) => all.find((f) => f.text === text)!;
    expect(byText('User wants short answers.')).toMatchObject({ scope: 'project', scopeKey: 'billing', kind: 'fact' });
    expect(byText('Prefers pnpm over npm.')).toMatchObject({
      scope: 'workspace',
      kind: 'preference',
      confidence: 'high',
    });
    expect(byText('The migration is split into two releases.')).toMatchObject({ scope: 'session', scopeKey: S2 });
    // The same bullet twice for one session: one fact, one evidence row, no reinforcement.
    const fly = await t.run('facts.get', { factId: byText('The billing service is deployed to Fly.io.').id });
    expect(fly.reinforcement).toBe(1);
    expect(fly.evidence).toEqual([expect.objectContaining({ sessionId: S1, messageId: null })]);
  });

  it('a session without a project lands on its next local scope', async () => {
    const t = await sampleHome(false);
    await t.run('import.legacy', { from: SAMPLE });
    const facts = (await t.run('facts.list', { sessionId: S1, limit: 100 })).facts;
    expect(new Set(facts.map((f) => `${f.scope}:${f.scopeKey}`))).toEqual(new Set(['folder:work-folder']));
  });

  it('the sentinel stops a rerun; force reruns without duplicating or reinforcing anything', async () => {
    const t = await sampleHome();
    await t.run('import.legacy', { from: SAMPLE });
    const snapshot = () =>
      t.engine.db
        .prepare(
          'SELECT f.text, f.reinforcement, count(e.session_id) AS evidence FROM memory_facts f JOIN memory_fact_evidence e ON e.fact_seq = f.seq GROUP BY f.id ORDER BY f.text',
        )
        .all();
    const before = snapshot();
    expect(await t.run('import.legacy', { from: SAMPLE })).toMatchObject({ skipped: true });
    const forced = await t.run('import.legacy', { from: SAMPLE, force: true });
    expect(forced).toMatchObject({
      skipped: false,
      sessions: 0,
      sessionsAlreadyImported: 2,
      factsCreated: 0,
      evidenceCreated: 0,
    });
    expect(snapshot()).toEqual(before);
  });

  it('changed notes are picked up by a forced rerun; existing evidence is not reinforced twice', async () => {
    const home = newHome();
    const t = engineIn(home);
    await t.run('sessions.create', { id: S1, projectId: 'p' });
    await t.run('sessions.create', { id: S2, projectId: 'p' });
    const notes = path.join(home, 'notes-src');
    mkdirSync(notes);
    const block = (id: string, bullets: string[]) =>
      `<!-- evoflux-memory-facts:v1 source=session:${id} -->\n\n${bullets.map((b) => `- ${b}`).join('\n')}\n`;
    writeFileSync(path.join(notes, 'a.md'), block(S1, ['Shared fact.']) + block(S2, ['Shared fact.']));
    expect(await t.run('import.legacy', { from: notes })).toMatchObject({ factsCreated: 1, evidenceCreated: 2 });
    const shared = (await t.run('facts.list', { text: 'Shared' })).facts[0]!;
    expect(shared.reinforcement).toBe(2);
    writeFileSync(path.join(notes, 'a.md'), block(S1, ['Shared fact.', 'New fact.']) + block(S2, ['Shared fact.']));
    expect(await t.run('import.legacy', { from: notes, force: true })).toMatchObject({
      sessions: 1,
      sessionsAlreadyImported: 1,
      factsCreated: 1,
      evidenceCreated: 1,
    });
    expect((await t.run('facts.get', { factId: shared.id })).reinforcement).toBe(2);
  });

  it('secret bullets are rejected and counted, never stored; unknown sessions are counted as missing', async () => {
    const home = newHome();
    const t = engineIn(home);
    await t.run('sessions.create', { id: S1, projectId: 'p' });
    const notes = path.join(home, 'n');
    mkdirSync(notes);
    const key = 'sk-' + 'A1b2C3d4E5f6G7h8I9j0';
    writeFileSync(
      path.join(notes, 'x.md'),
      `<!-- evoflux-memory-facts:v1 source=session:${S1} -->\n- The staging password: hunter2\n- Use key ${key}\n- A fine fact.\n` +
        `<!-- evoflux-memory-facts:v1 source=session:${S2} -->\n- From a session that is gone.\n`,
    );
    const r = await t.run('import.legacy', { from: notes });
    expect(r).toMatchObject({ rejected: 2, facts: 1, sessions: 1, sessionsMissing: 1 });
    const texts = (await t.run('facts.list', { limit: 50 })).facts.map((f) => f.text);
    expect(texts).toEqual(['A fine fact.']);
  });

  it('runs on the first startup when <home>/wiki/notes has notes and no sentinel, and only then', async () => {
    const home = newHome();
    const setup = engineIn(home);
    await setup.run('sessions.create', { id: S1, projectId: 'billing' });
    await setup.run('sessions.create', { id: S2 });
    await setup.engine.close();
    open.splice(0);
    const notes = path.join(home, 'wiki', 'notes');
    mkdirSync(notes, { recursive: true });
    for (const f of ['2026-04-28.md', '2026-04-29.md'])
      writeFileSync(path.join(notes, f), readFileSync(path.join(SAMPLE, f)));

    const first = engineIn(home);
    const report = await first.engine.legacyImport.run({}); // joins the startup import
    expect(report).toMatchObject({ skipped: false, sessions: 2, factsCreated: 7 });
    expect(existsSync(sentinelPath(first.engine.paths))).toBe(true);
    expect(readFileSync(sentinelPath(first.engine.paths), 'utf8')).toMatch(
      /completed .* 2 files, 2 sessions, 7 facts\n$/,
    );
    await first.engine.close();
    open.splice(0);

    const second = engineIn(home);
    expect(await second.engine.legacyImport.run({})).toMatchObject({ skipped: true });
    expect((await second.run('facts.list', { limit: 50 })).facts).toHaveLength(7);
  });

  it('CLI: import legacy --from DIR, then a rerun is refused by the sentinel', () => {
    const home = newHome();
    expect(runCli(['sessions', 'add', '--id', S1, '--project', 'p', '--home', home]).status).toBe(0);
    const r = runCli(['import', 'legacy', '--from', SAMPLE, '--home', home]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/imported from .*legacy-notes-sample: 2 file\(s\), 8 bullet\(s\)/);
    expect(r.stdout).toMatch(/1 session\(s\) imported, 0 already imported, 1 missing/);
    const again = runCli(['import', 'legacy', '--from', SAMPLE, '--home', home, '--json']);
    expect(again.json()).toMatchObject({ skipped: true });
    const bad = runCli(['import', 'legacy', '--from', path.join(home, 'nope'), '--home', home]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/from: is not a directory/);
  });
});
