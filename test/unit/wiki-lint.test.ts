import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { parsePage } from '../../src/main/wiki/front-matter';
import { LINT_CATEGORIES } from '../../src/shared/commands/wiki';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine();
});
afterEach(() => t.close());

const fm = (extra = '') => `---\ndescription: a page\nupdated: 2025-12-20\n${extra}---\n`;

describe('wiki lint', () => {
  it('reports every category and writes LINT.md, changing nothing else', async () => {
    const w = t.engine.wiki;
    const s = await t.run('sessions.create', {});
    await w.write(
      'topics/alpha.md',
      `${fm()}# Alpha\n\nSee [[beta]], [[bare]], [[old]], [[half]], [[INDEX]] and [[missing-concept]].\n`,
    );
    await w.write('topics/beta.md', `${fm('confidence: low\n')}# Beta\n\nBack to [[alpha]].\n`);
    await w.write('topics/lonely.md', `${fm()}# Nobody links here\n`);
    await w.write('entities/bare.md', '# No front matter\n\n[[alpha]]\n');
    await w.write('entities/old.md', '---\ndescription: old\nupdated: 2025-01-01\n---\n[[alpha]] [[bare]] [[old]]\n');
    await w.write('comparisons/half.md', '---\ntags: [x]\n---\n[[alpha]] [[half]]\n');
    await w.write(
      `sources/session-deadbeef.md`,
      `---\ndescription: gone\nupdated: 2025-12-31\nsession: 01900000-0000-7000-8000-0000deadbeef\n---\n`,
    );
    const alive = s.id.replace(/-/g, '').slice(-8);
    await w.write(
      `sources/session-${alive}.md`,
      `---\ndescription: here\nupdated: 2025-12-31\nsession: ${s.id}\n---\n`,
    );
    await w.write('INDEX.md', '# Wiki Index\n\n- [[alpha]]\n- [[beta]]\n- [[ghost]]\n');

    const r = await t.run('wiki.lint', {});
    const has = (category: string, p: string, fragment = '') =>
      expect(r.findings).toContainEqual(
        expect.objectContaining({ category, path: p, message: expect.stringContaining(fragment) }),
      );
    has('broken_link', 'topics/alpha.md', '[[missing-concept]]');
    // Root files are pages too: [[INDEX]] resolves to INDEX.md, as the window links it.
    expect(r.findings).not.toContainEqual(expect.objectContaining({ message: expect.stringContaining('[[index]]') }));
    has('orphan_page', 'topics/lonely.md');
    has('missing_front_matter', 'entities/bare.md', 'no front matter');
    has('missing_front_matter', 'comparisons/half.md', 'description and updated');
    has('stale_page', 'entities/old.md', '2025-01-01');
    has('low_confidence', 'topics/beta.md');
    has('index_drift', 'INDEX.md', '[[ghost]]');
    has('index_drift', 'topics/lonely.md', 'not listed');
    has('deleted_session', 'sources/session-deadbeef.md');
    expect(
      r.findings.filter((f) => f.path === `sources/session-${alive}.md` && f.category === 'deleted_session'),
    ).toEqual([]);
    expect(r.findings.filter((f) => f.category === 'orphan_page').map((f) => f.path)).toEqual(['topics/lonely.md']);
    expect(r.findings.filter((f) => f.category === 'stale_page').map((f) => f.path)).toEqual(['entities/old.md']);

    const lint = readFileSync(path.join(t.engine.paths.wiki, 'LINT.md'), 'utf8');
    expect(parsePage(lint).data).toEqual({ generated: '2026-01-01 UTC', issues: r.issues });
    expect(lint).toContain(`## Broken links (1)`);
    expect(lint).toContain('## Deleted sessions (1)');
  });

  it('gives a healthy wiki zero issues and an explicit (none) per category', async () => {
    const w = t.engine.wiki;
    await w.write('topics/a.md', `${fm()}[[b]]\n`);
    await w.write('topics/b.md', `${fm()}[[a]]\n`);
    await w.write('INDEX.md', '# Wiki Index\n\n- [[a]]\n- [[b]]\n');
    const r = await t.run('wiki.lint', {});
    expect(r).toMatchObject({ issues: 0, findings: [] });
    const lint = readFileSync(path.join(t.engine.paths.wiki, 'LINT.md'), 'utf8');
    expect(lint.match(/^- \(none\)$/gm)).toHaveLength(LINT_CATEGORIES.length);
    expect(lint).toContain('issues: 0');
  });
});

describe('wiki lint across passes', () => {
  it('finds a mention on an unchanged page once what it names is forgotten, and reads an edited page again', async () => {
    const w = t.engine.wiki;
    const s = await t.run('sessions.create', { projectId: 'acme' });
    const fact = await t.run('facts.add', { sessionId: s.id, text: 'Deploys use Docker Compose', scope: 'project' });
    const mentions = async () =>
      (await t.run('wiki.lint', {})).findings.filter((f) => f.category === 'forgotten_mention').map((f) => f.message);
    // A person's line: forget never rewrites it, lint points at it.
    const page = `${fm()}# Deploys\n\nWe agreed on this (fact ${fact.fact.id}).\n`;
    await w.write('topics/deploys.md', page);
    expect(await mentions()).toEqual([]);

    // The page is not touched: the fact it names goes, and the next pass says so.
    await t.run('facts.delete', { factId: fact.fact.id });
    expect(w.readText('topics/deploys.md')).toBe(page);
    expect(await mentions()).toEqual(['line 7 cites a fact that no longer exists']);

    // The page is edited (a line added above): the next pass reads it again and counts its lines anew.
    await w.write('topics/deploys.md', page.replace('# Deploys\n', '# Deploys\n\nIntro.\n'));
    expect(await mentions()).toEqual(['line 9 cites a fact that no longer exists']);
    await w.write('topics/deploys.md', `${fm()}# Deploys\n\nSee session ${s.id}.\n`);
    expect(await mentions()).toEqual([]);
    await t.run('sessions.delete', { sessionId: s.id });
    expect(await mentions()).toEqual(['line 7 names a session that no longer exists']);
  });
});

describe('wiki export', () => {
  it('writes facts by scope and refuses a folder inside the wiki', async () => {
    const s = await t.run('sessions.create', { projectId: 'acme' });
    await t.run('facts.add', { sessionId: s.id, text: 'Uses pnpm workspaces', scope: 'project', kind: 'convention' });
    await t.run('facts.add', { sessionId: s.id, text: 'Prefers dark mode', scope: 'user', kind: 'preference' });
    await t.run('facts.add', { sessionId: s.id, text: 'Only this chat', scope: 'session', kind: 'fact' });
    const dir = path.join(t.home, 'export');
    const r = await t.run('wiki.export', { dir });
    expect(r.facts).toBe(3);
    expect(r.pages.map((p) => p.scope)).toEqual(['user', 'project', 'session']);
    const project = readFileSync(path.join(dir, r.pages[1]!.file), 'utf8');
    expect(parsePage(project).data).toMatchObject({ scope: 'project', scope_key: 'acme', facts: 1 });
    expect(project).toContain('## convention (1)');
    expect(project).toContain('- Uses pnpm workspaces _(medium · reinforced by 1 session)_');
    expect(project).toContain(`session \`${s.id}\``);
    for (const bad of [t.engine.paths.wiki, path.join(t.engine.paths.wiki, 'topics')]) {
      await expect(t.run('wiki.export', { dir: bad })).rejects.toMatchObject({ code: 'invalid_input', field: 'dir' });
    }
  });
});
