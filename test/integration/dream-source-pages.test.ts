import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources, type TestEngine } from '../helpers/home';
import { parsePage } from '../../src/main/wiki/front-matter';
import { sessionSourcePage, sessionSourceSlug, wikiSourcePages } from '../../src/main/dream/source-page';
import { validateWikiPath } from '../../src/main/wiki/paths';

const res = testResources();
afterEach(() => res.release());

const read = (t: TestEngine, rel: string) => readFileSync(path.join(t.engine.paths.wiki, rel), 'utf8');

async function sessionNamed(t: TestEngine, id: string, fact: string) {
  const s = await t.run('sessions.create', { id, projectId: 'acme' });
  t.clock.advance(1000);
  const m = await t.run('messages.add', { sessionId: s.id, role: 'user', content: `about ${fact}` });
  await t.run('facts.add', { sessionId: s.id, messageId: m.id, text: fact, kind: 'decision', scope: 'project' });
  return s;
}

/** Every `[[session-…]]` link on the project's group page, with the fact text of its bullet. */
function groupCitations(t: TestEngine): Map<string, string[]> {
  const name = readdirSync(path.join(t.engine.paths.wiki, 'topics')).find((n) => n.startsWith('project-acme'))!;
  const out = new Map<string, string[]>();
  for (const line of read(t, `topics/${name}`).split('\n')) {
    const cites = [...line.matchAll(/\[\[(session-[a-z0-9-]+)\]\]/g)].map((m) => m[1]!);
    if (cites.length) out.set(line.slice(2, line.indexOf(' _(')), cites);
  }
  return out;
}

describe("Dream's source page names", () => {
  it('are path-safe for any session id: an id with "/" or spaces no longer breaks every run', async () => {
    const t = res.engine();
    for (const id of ['team/alpha/42', 'Ünïcode id with spaces', '../../etc/passwd', 'a'.repeat(200)]) {
      await sessionNamed(t, id, `We ship build ${id.length} on Fridays`);
    }
    const r = await t.run('dream.run', { drain: true });
    expect(r).toMatchObject({ failed: 0, sessionsProcessed: 4, remaining: 0 });
    const sources = readdirSync(path.join(t.engine.paths.wiki, 'sources'));
    expect(sources).toHaveLength(4);
    for (const name of sources) expect(() => validateWikiPath(`sources/${name}`)).not.toThrow();
    expect(await t.run('dream.run', { drain: true })).toMatchObject({ failed: 0, sessionsProcessed: 0 });
  });

  it('are unique: two sessions whose ids share the last 8 hex digits never link each other', async () => {
    const t = res.engine();
    const a = await sessionNamed(t, '01960000-0000-7000-8000-111155556666', 'We deploy with Helm charts');
    const b = await sessionNamed(t, '01960000-0000-7000-8000-222255556666', 'We deploy with Argo rollouts');
    expect(sessionSourceSlug(a.id)).not.toBe(sessionSourceSlug(b.id));
    expect((await t.run('dream.run', { drain: true })).failed).toBe(0);
    const cites = groupCitations(t);
    expect(cites.get('We deploy with Helm charts')).toEqual([sessionSourceSlug(a.id)]);
    expect(cites.get('We deploy with Argo rollouts')).toEqual([sessionSourceSlug(b.id)]);
    for (const s of [a, b]) {
      const page = parsePage(read(t, `sources/${sessionSourceSlug(s.id)}.md`));
      expect(page.data?.session).toBe(s.id);
    }
  });

  it('keep a page an older version named session-<last 8 hex>, without orphaning it or linking the wrong session', async () => {
    const t = res.engine();
    const a = await sessionNamed(t, '01960000-0000-7000-8000-111155556666', 'We deploy with Helm charts');
    // What an older version wrote for session a, plus a link to it from a page a person keeps.
    await t.engine.wiki.write(
      'sources/session-55556666.md',
      `---\ndescription: old page\nupdated: 2025-01-01\nsession: ${a.id}\n---\n# Session 55556666\n`,
    );
    await t.engine.wiki.write(
      'topics/history.md',
      '---\ndescription: history\nupdated: 2025-01-01\n---\n# History\n\nSee [[session-55556666]].\n',
    );
    const b = await sessionNamed(t, '01960000-0000-7000-8000-222255556666', 'We deploy with Argo rollouts');
    expect(sessionSourcePage(wikiSourcePages(t.engine.wiki), a.id)).toBe('sources/session-55556666.md');
    expect(sessionSourcePage(wikiSourcePages(t.engine.wiki), b.id)).toBe(`sources/${sessionSourceSlug(b.id)}.md`);

    expect((await t.run('dream.run', { drain: true })).failed).toBe(0);
    const sources = readdirSync(path.join(t.engine.paths.wiki, 'sources')).sort();
    expect(sources).toEqual([`${sessionSourceSlug(b.id)}.md`, 'session-55556666.md'].sort());
    expect(parsePage(read(t, 'sources/session-55556666.md')).body).toContain('We deploy with Helm charts');
    const cites = groupCitations(t);
    expect(cites.get('We deploy with Helm charts')).toEqual(['session-55556666']);
    expect(cites.get('We deploy with Argo rollouts')).toEqual([sessionSourceSlug(b.id)]);
    const lint = await t.run('wiki.lint', {});
    expect(lint.findings.filter((f) => f.category === 'broken_link' || f.category === 'deleted_session')).toEqual([]);
  });
});
