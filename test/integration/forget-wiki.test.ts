import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { wikiFiles } from '../unit/dream-fixtures';
import { sessionSourceSlug } from '../../src/main/dream/source-page';

const sourcePageStem = (id: string) => sessionSourceSlug(id);
const sourcePagePath = (id: string) => `sources/${sessionSourceSlug(id)}.md`;
import { dispatch } from '../../src/main/commands/dispatch';
import { AgentPrincipal } from '../../src/main/commands/principal';
import { DeterministicConsolidator } from '../../src/main/dream/deterministic';
import { buildTranscript } from '../../src/main/dream/transcript';

/**
 * Forget reaches the wiki: Dream's copies (the source page, anchored bullets, citations, emptied
 * group pages) go through the wiki service; a person's lines are kept and listed, by the preview
 * before and by lint after.
 */
describe('forget and the wiki', () => {
  let t: TestEngine;
  beforeEach(() => (t = openTestEngine()));
  afterEach(() => t.close());

  const read = (rel: string) => readFileSync(path.join(t.engine.paths.wiki, rel), 'utf8');
  const topic = (prefix: string) => t.engine.wiki.listSection('topics').find((n) => n.startsWith(prefix))!;

  async function seed() {
    const doomed = await t.run('sessions.create', { projectId: 'harbor', workspace: '/srv/harbor-a', title: 'A' });
    const keeper = await t.run('sessions.create', { projectId: 'harbor', title: 'B' });
    const m = await t.run('messages.add', { sessionId: doomed.id, role: 'user', content: 'We rent gantry cranes' });
    await t.run('messages.add', { sessionId: keeper.id, role: 'user', content: 'Deploys happen on Tuesdays' });
    // A person's entity page: Dream merges the matching fact into it and keeps the person's text.
    await t.engine.wiki.write(
      'entities/gantry.md',
      [
        '---',
        'description: Gantry cranes',
        'updated: 2026-01-01',
        '---',
        '# Gantry',
        '',
        `Discussed in [[${sourcePageStem(doomed.id)}]] (session ${doomed.id}).`,
        '',
      ].join('\n'),
    );
    const add = (sessionId: string, text: string, scope: 'project' | 'workspace' | 'session', messageId?: string) =>
      t.run('facts.add', { sessionId, messageId, scope, kind: 'decision', text });
    const onlyA = (await add(doomed.id, 'Gantry cranes are rented monthly', 'project', m.id)).fact;
    const shared = (await add(doomed.id, 'Deploys happen on Tuesdays', 'project')).fact;
    await add(keeper.id, 'Deploys happen on Tuesdays', 'project');
    await add(doomed.id, 'Harbor A keeps its own tide tables', 'workspace');
    await t.run('dream.run', { drain: true });
    await t.engine.wiki.appendNote('Reminder: gantry cranes are rented monthly, check the invoice');
    return { doomed, keeper, onlyA, shared };
  }

  it('the preview lists the pages that change and the lines that stay; the forget does exactly that', async () => {
    const s = await seed();
    const decisions = `topics/${topic('project-harbor-')}`;
    const workspace = `topics/${topic('workspace-harbor-a-')}`;
    expect(read(decisions)).toContain(`[[${sourcePageStem(s.doomed.id)}]]`);
    expect(read('entities/gantry.md')).toContain(`<!-- fact:${s.onlyA.id} -->`);
    const before = wikiFiles(t.engine.paths.wiki);

    const preview = await t.run('sessions.delete', { sessionId: s.doomed.id, dryRun: true });
    expect(wikiFiles(t.engine.paths.wiki)).toEqual(before);
    expect(preview.wiki.pending).toBe(false);
    expect(preview.wiki.pages).toEqual(
      expect.arrayContaining([
        { path: sourcePagePath(s.doomed.id), change: 'delete' },
        { path: workspace, change: 'delete' },
        { path: decisions, change: 'edit' },
        { path: 'entities/gantry.md', change: 'edit' },
        { path: 'INDEX.md', change: 'edit' },
      ]),
    );
    expect(preview.wiki.mentions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'entities/gantry.md', text: expect.stringContaining('Discussed in') }),
        expect.objectContaining({ path: expect.stringMatching(/^notes\//), text: expect.stringContaining('gantry') }),
      ]),
    );

    const done = await t.run('sessions.delete', { sessionId: s.doomed.id });
    expect(done.wiki).toEqual(preview.wiki);
    // Lines are counted in the page as it is after the clean-up.
    const gantryLine = read('entities/gantry.md')
      .split('\n')
      .findIndex((l) => l.startsWith('Discussed in'));
    expect(done.wiki.mentions).toContainEqual(
      expect.objectContaining({ path: 'entities/gantry.md', line: gantryLine + 1 }),
    );
    expect(t.engine.wiki.exists(sourcePagePath(s.doomed.id))).toBe(false);
    expect(t.engine.wiki.exists(workspace)).toBe(false);
    const page = read(decisions);
    expect(page).not.toContain('Gantry cranes are rented monthly');
    expect(page).not.toContain(sourcePageStem(s.doomed.id));
    expect(page).toContain(`Deploys happen on Tuesdays`);
    expect(page).toContain(`[[${sourcePageStem(s.keeper.id)}]]`);
    const gantry = read('entities/gantry.md');
    expect(gantry).not.toContain(`<!-- fact:${s.onlyA.id} -->`);
    expect(gantry).toContain(`(session ${s.doomed.id})`); // a person's line is never rewritten
    expect(read('INDEX.md')).not.toContain(sourcePageStem(s.doomed.id));

    // memory_search no longer finds the forgotten fact on any page Dream wrote.
    const hits = await t.run('memory.search', { sessionId: s.keeper.id, query: 'rented monthly', sources: ['wiki'] });
    expect(
      hits.results
        .filter((h) => !h.citation.path?.startsWith('notes/'))
        .map((h) => h.snippet)
        .join(),
    ).not.toContain('rented monthly');

    // Lint lists what is left, by page and line (the note's copy of the text only the preview could know).
    const lint = await t.run('wiki.lint', {});
    const mentions = lint.findings.filter((f) => f.category === 'forgotten_mention');
    expect(mentions).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'entities/gantry.md', line: gantryLine + 1 })]),
    );
    expect(mentions.map((f) => f.message).join('\n')).toMatch(
      /links the source page of a session that no longer exists/,
    );
    expect(mentions.map((f) => f.message).join('\n')).toMatch(/names a session that no longer exists/);
    expect(read('LINT.md')).toContain(`entities/gantry.md:${gantryLine + 1}`);
    expect(read('LINT.md')).not.toContain(s.doomed.id);
  });

  it('deleting one fact removes its bullets everywhere; an agent hears only of pages it can see', async () => {
    const s = await seed();
    const decisions = `topics/${topic('project-harbor-')}`;
    const preview = await t.run('facts.delete', { factId: s.shared.id, dryRun: true });
    // Its only bullet on the group page goes, and with it the page Dream made for it.
    expect(preview.wiki.pages).toEqual(
      expect.arrayContaining([
        { path: decisions, change: 'delete' },
        { path: sourcePagePath(s.keeper.id), change: 'edit' },
      ]),
    );
    expect(read(decisions)).toContain('Deploys happen on Tuesdays');
    const done = await t.run('facts.delete', { factId: s.shared.id });
    expect(done.wiki).toEqual(preview.wiki);
    expect(t.engine.wiki.exists(decisions)).toBe(false);
    expect(read(sourcePagePath(s.keeper.id))).not.toContain(`fact:${s.shared.id}`);
    // Dream's own links to the page it deleted go with it: no broken link is left behind.
    expect(read(sourcePagePath(s.keeper.id))).not.toContain(decisions.slice('topics/'.length, -3));
    const lint = await t.run('wiki.lint', {});
    expect(lint.findings.filter((f) => f.category === 'broken_link')).toEqual([]);

    // The agent of project harbor forgets the crane fact. The bullet also sits on the source page of
    // session A, whose workspace scope the agent cannot see: that page is not named in its answer.
    expect(read(sourcePagePath(s.doomed.id))).toContain(`fact:${s.onlyA.id}`);
    const agent = new AgentPrincipal({ projects: ['harbor'], workspaces: [], folders: [] });
    const answer = await dispatch(t.engine, 'memory.forget', { sessionId: s.keeper.id, factId: s.onlyA.id }, agent);
    expect(answer.wiki.pages).toEqual([{ path: 'entities/gantry.md', change: 'edit' }]);
    expect(read('entities/gantry.md')).not.toContain(`fact:${s.onlyA.id}`);
    expect(read(sourcePagePath(s.doomed.id))).not.toContain(`fact:${s.onlyA.id}`);
  });

  it('Dream never writes a page for a session forgotten after it was admitted', async () => {
    const s = await seed();
    const item = {
      kind: 'session' as const,
      key: s.keeper.id,
      pending: { id: s.keeper.id, createdAt: 0, latestVisibleAt: null, processedAt: null, evidenceAt: null },
      session: s.keeper,
      transcript: buildTranscript(t.engine.db, s.keeper.id, 60_000),
      chars: 0,
    };
    await t.run('sessions.delete', { sessionId: s.keeper.id });
    expect(t.engine.wiki.exists(sourcePagePath(s.keeper.id))).toBe(false);
    const consolidator = new DeterministicConsolidator(t.engine.db, t.engine.wiki);
    const out = await consolidator.consolidate([item], '2026-01-02');
    expect(out.outcomes[0]).toMatchObject({ ok: true });
    expect(t.engine.wiki.exists(sourcePagePath(s.keeper.id))).toBe(false);
  });
});
