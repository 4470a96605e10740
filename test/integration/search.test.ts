import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openTestEngine, type TestEngine } from '../helpers/home';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine();
});
afterEach(async () => {
  await t.close();
});

const session = (input: Record<string, unknown> = {}) => t.run('sessions.create', input as never);
const say = (
  sessionId: string,
  role: 'user' | 'assistant' | 'tool' | 'system',
  content: string,
  flags: Record<string, boolean> = {},
) => t.run('messages.add', { sessionId, role, content, ...flags } as never);
const search = (sessionId: string, query: string, extra: Record<string, unknown> = {}) =>
  t.run('memory.search', { sessionId, query, ...extra } as never);
const dialogue = async (sessionId: string, query: string) =>
  (await search(sessionId, query, { sources: ['dialogue'], limit: 20 })).results;

describe('memory_search: dialogue evidence', () => {
  it('excludes tool rows, tool-call rounds, system rows, hidden rows, side-chat copies, recall rows and compacted rows', async () => {
    const a = await session({ projectId: 'alpha', title: 'alpha chat' });
    const real = await say(a.id, 'user', 'how does kafka partition rebalancing work');
    const answer = await say(a.id, 'assistant', 'kafka partition rebalancing moves partitions between consumers');
    await say(a.id, 'assistant', 'calling kafka partition tool', { toolCallRound: true });
    await say(a.id, 'tool', 'kafka partition raw tool output');
    await say(a.id, 'system', 'kafka partition system prompt');
    await say(a.id, 'user', 'kafka partition hidden directive', { hidden: true });
    await say(a.id, 'user', 'kafka partition synthetic row', { systemGenerated: true });
    const side = await session({ kind: 'side-chat', parentSessionId: a.id });
    await say(side.id, 'user', 'kafka partition copied context', { hidden: true, sideChatContext: true });
    const sideReal = await say(side.id, 'user', 'kafka partition question from the side chat');
    await t.run('facts.add', {
      sessionId: a.id,
      text: 'kafka partition rebalancing uses cooperative sticky',
      scope: 'project',
    });
    await t.run('turns.begin', { sessionId: a.id, userText: 'explain kafka partition rebalancing again' });

    const refs = (await dialogue(a.id, 'kafka partition')).map((h) => h.ref);
    expect(refs).toContain(`message:${real.id}`);
    expect(refs).toContain(`message:${answer.id}`);
    expect(refs).toContain(`message:${sideReal.id}`);
    const hits = await dialogue(a.id, 'kafka partition');
    for (const h of hits) {
      expect(h.source).toBe('dialogue');
      expect(h.snippet).not.toMatch(/tool|system prompt|hidden|synthetic|copied|memory_data/);
      expect(h.citation.messageId).toBeDefined();
    }
    // real user, answer, side-chat question, the turn's user message: nothing else
    expect(hits).toHaveLength(4);

    // Compaction moves rows out of the index; the summary stands in for them.
    for (let i = 0; i < 4; i++) {
      await say(a.id, 'user', `unrelated question ${i}`);
      await say(a.id, 'assistant', `unrelated answer ${i}`);
    }
    await t.run('turns.compact', { sessionId: a.id, keepLastTurns: 2 });
    const after = (await dialogue(a.id, 'kafka partition')).map((h) => h.ref);
    expect(after).not.toContain(`message:${real.id}`);
    expect(after).toContain(`message:${sideReal.id}`);
  });

  it('forgetting a session removes its messages from the dialogue index', async () => {
    const a = await session({ projectId: 'alpha' });
    const b = await session({ projectId: 'alpha' });
    await say(a.id, 'user', 'the quokka migration plan');
    const kept = await say(b.id, 'user', 'the quokka migration retrospective');
    await t.run('sessions.delete', { sessionId: a.id });
    expect((await dialogue(b.id, 'quokka migration')).map((h) => h.ref)).toEqual([`message:${kept.id}`]);
    const rows = t.engine.db.prepare('SELECT count(*) AS n FROM dialogue_index_rows').get() as { n: number };
    expect(rows.n).toBe(1);
  });

  it('redacts a secret in a session title from every hit of that session', async () => {
    const key = `ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`;
    const a = await session({ projectId: 'alpha', title: `deploy notes ${key}` });
    await say(a.id, 'user', 'which zeppelin hangar keeps the spare rotors');
    await say(a.id, 'assistant', 'the north zeppelin hangar keeps the spare rotors');
    const hits = await dialogue(a.id, 'zeppelin hangar rotors');
    expect(hits).toHaveLength(2);
    for (const h of hits) {
      expect(h.title).toMatch(/^deploy notes \[redacted github-token\] \((user|assistant)\)$/);
      expect(h.title).not.toContain(key);
    }
  });

  it('hidden rows cannot push real hits out of the limit', async () => {
    const a = await session({ projectId: 'alpha' });
    const real = await say(a.id, 'user', 'the flamegraph shows allocator contention');
    for (let i = 0; i < 600; i++)
      await say(a.id, 'user', `flamegraph allocator contention copy ${i}`, { hidden: true });
    const hits = await dialogue(a.id, 'flamegraph allocator contention');
    expect(hits.map((h) => h.ref)).toEqual([`message:${real.id}`]);
  });

  it('stays within the project, else the normalized workspace, else the folder, plus the own team', async () => {
    const alpha1 = await session({ projectId: 'alpha', workspace: '/tmp/shared-ws' });
    const alpha2 = await session({ projectId: 'alpha' });
    const beta = await session({ projectId: 'beta', workspace: '/tmp/shared-ws' });
    const ws1 = await session({ workspace: '/tmp/ws-one' });
    const ws1b = await session({ workspace: '/tmp/ws-one/../ws-one/' });
    const ws2 = await session({ workspace: '/tmp/ws-two' });
    const f1 = await session({ folderId: 'folder-1' });
    const f1b = await session({ folderId: 'folder-1' });
    const f2 = await session({ folderId: 'folder-2' });
    const lone = await session();
    const member = await session({ kind: 'team-member', parentSessionId: lone.id });
    const all = [alpha1, alpha2, beta, ws1, ws1b, ws2, f1, f1b, f2, lone, member];
    const byMessage = new Map<string, string>();
    for (const s of all) byMessage.set((await say(s.id, 'user', `zeppelin hangar inventory ${s.id}`)).id, s.id);
    const seen = async (s: { id: string }) =>
      new Set((await dialogue(s.id, 'zeppelin hangar inventory')).map((h) => byMessage.get(h.citation.messageId!)));

    expect(await seen(alpha1)).toEqual(new Set([alpha1.id, alpha2.id]));
    expect(await seen(beta)).toEqual(new Set([beta.id]));
    expect(await seen(ws1)).toEqual(new Set([ws1.id, ws1b.id]));
    expect(await seen(ws2)).toEqual(new Set([ws2.id]));
    expect(await seen(f1)).toEqual(new Set([f1.id, f1b.id]));
    expect(await seen(lone)).toEqual(new Set([lone.id, member.id]));
    expect(await seen(member)).toEqual(new Set([lone.id, member.id]));
  });
});

describe('memory_search: facts and wiki', () => {
  it('merges scoped facts, wiki pages and dialogue with source, citation and snippet; honours sources and limit', async () => {
    const a = await session({ projectId: 'alpha' });
    const b = await session({ projectId: 'beta' });
    const mine = await t.run('facts.add', {
      sessionId: a.id,
      text: 'Terraform state is stored in an S3 bucket',
      scope: 'project',
    });
    await t.run('facts.add', { sessionId: b.id, text: 'Terraform state for beta is local', scope: 'project' });
    await say(a.id, 'assistant', 'We moved terraform state to the S3 bucket last week');
    const wiki = path.join(t.home, 'wiki');
    mkdirSync(path.join(wiki, 'topics'), { recursive: true });
    mkdirSync(path.join(wiki, 'notes'), { recursive: true });
    writeFileSync(
      path.join(wiki, 'topics', 'terraform.md'),
      '---\ndescription: Terraform state handling\ntags: [terraform, infra]\n---\nState lives in S3 with locking in DynamoDB.\n',
    );
    writeFileSync(path.join(wiki, 'notes', '2026-01-02.md'), 'Talked about terraform state drift today.\n');
    writeFileSync(path.join(wiki, 'topics', 'cooking.md'), 'Pasta needs salted water.\n');

    const { results } = await search(a.id, 'terraform state');
    const refs = results.map((r) => r.ref);
    expect(refs).toContain(`fact:${mine.fact.id}`);
    expect(refs).toContain('topic:terraform');
    expect(refs).toContain('note:2026-01-02.md');
    expect(results.some((r) => r.source === 'dialogue')).toBe(true);
    expect(results.some((r) => r.snippet.includes('beta'))).toBe(false);
    expect(refs).not.toContain('topic:cooking');
    const topic = results.find((r) => r.ref === 'topic:terraform')!;
    expect(topic).toMatchObject({
      source: 'wiki',
      title: 'Terraform state handling',
      citation: { path: 'topics/terraform.md' },
    });
    const fact = results.find((r) => r.source === 'fact')!;
    expect(fact.citation.sessionId).toBe(a.id);
    const scores = results.map((r) => r.score);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);

    const onlyWiki = await search(a.id, 'terraform state', { sources: ['wiki'], limit: 1 });
    expect(onlyWiki.results).toHaveLength(1);
    expect(onlyWiki.results[0]!.source).toBe('wiki');
    await expect(search(a.id, 'terraform', { limit: 21 })).rejects.toMatchObject({ field: 'limit' });
    await expect(search(a.id, 'terraform', { sources: ['web'] })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('explicit search does not abstain on a single word', async () => {
    const a = await session({ projectId: 'alpha' });
    await t.run('facts.add', { sessionId: a.id, text: 'Use bun for scripts', scope: 'project' });
    const r = await search(a.id, 'bun', { sources: ['facts'] });
    expect(r.results).toHaveLength(1);
    expect((await t.run('memory.recall', { sessionId: a.id, text: 'bun' })).abstained).toBe(true);
  });
});
