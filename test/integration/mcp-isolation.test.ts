import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome, openTestEngine } from '../helpers/home';
import { runCli } from '../helpers/cli';
import { connectMcp, errorMeta, type McpSession } from '../helpers/mcp';
import { startHttpServer } from '../../src/main/api/http';

/** Every row a tool could change, hashed: "nothing changed" means exactly that. */
function digest(home: string): string {
  const db = new Database(path.join(home, 'memory.db'), { readonly: true });
  try {
    const h = createHash('sha256');
    for (const table of ['sessions', 'session_messages', 'memory_facts', 'memory_fact_evidence', 'agent_checkpoints']) {
      h.update(JSON.stringify(db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all()));
    }
    return h.digest('hex');
  } finally {
    db.close();
  }
}

/**
 * The attack from the issue, end to end: two agent connections started for projects alpha and
 * bravo share one data home. Bravo recalls alpha's user preference; nothing it receives may name
 * alpha's session, and alpha's session id (learned some other way) opens nothing.
 */
describe('agent connections are confined to their context (real SDK clients, spawned CLI)', () => {
  const home = tempHome('evoflux-isolation-');
  let alpha: McpSession;
  let bravo: McpSession;
  let A: string;
  let B: string;
  let alphaPrivate: string;
  const outputs: unknown[] = [];
  const keep = <T>(x: T): T => {
    outputs.push(x);
    return x;
  };

  beforeAll(async () => {
    [alpha, bravo] = await Promise.all([
      connectMcp(home.dir, ['--project', 'alpha']),
      connectMcp(home.dir, ['--project', 'bravo']),
    ]);
    A = (await alpha.call('memory_create_session', { projectId: 'alpha', title: 'Alpha work' })).id;
    await alpha.call('memory_remember', {
      sessionId: A,
      text: 'I prefer tabs over spaces for indentation',
      kind: 'preference',
      scope: 'user',
    });
    alphaPrivate = (
      await alpha.call('memory_remember', {
        sessionId: A,
        text: 'Alpha launch codename is Nightjar',
        kind: 'fact',
        scope: 'session',
      })
    ).fact.id;
    await alpha.call('memory_begin_turn', { sessionId: A, userText: 'The Nightjar rollout plan stays inside alpha' });
    await alpha.call('memory_complete_turn', { sessionId: A, assistantText: 'Noted: the Nightjar rollout plan.' });
    // Bravo does not name a project: its session lands in the one it was started for.
    B = keep(await bravo.call('memory_create_session', { title: 'Bravo work' })).id;
  });
  afterAll(async () => {
    await Promise.allSettled([alpha?.close(), bravo?.close()]);
    home.cleanup();
  });

  it("recalls the other context's user preference without naming its session", async () => {
    expect((await bravo.call('memory_session_scopes', { sessionId: B })).visible).toContainEqual({
      scope: 'project',
      key: 'bravo',
    });
    const recalled = keep(
      await bravo.call('memory_recall', { sessionId: B, text: 'do I prefer tabs or spaces for indentation' }),
    );
    expect(recalled.facts.map((f: { text: string }) => f.text)).toEqual(['I prefer tabs over spaces for indentation']);
    const citation = recalled.facts[0].citation;
    expect(citation.sessionId).toBeNull();
    expect(citation.messageId).toBeNull();
    expect(citation.ref).toMatch(/^ref:/);
    expect(recalled.block).toContain(citation.ref);

    const turn = keep(
      await bravo.call('memory_begin_turn', {
        sessionId: B,
        userText: 'which indentation do I prefer, tabs or spaces?',
      }),
    );
    expect(turn.context.block).toContain('I prefer tabs over spaces');
    keep(await bravo.call('memory_search', { sessionId: B, query: 'prefer tabs spaces indentation' }));
    keep(await bravo.call('memory_list_facts', { sessionId: B }));
    keep(await bravo.call('memory_extraction_status', { sessionId: B }));
    keep(await bravo.call('memory_dream_status', {}));
    for (const output of outputs) expect(JSON.stringify(output)).not.toContain(A);
  });

  it("treats alpha's session id as unknown: every tool answers not_found and nothing changes", async () => {
    const before = digest(home.dir);
    const attempts: [string, Record<string, unknown>, string][] = [
      ['memory_list_facts', { sessionId: A }, 'sessionId'],
      ['memory_search', { sessionId: A, query: 'Nightjar rollout plan', sources: ['dialogue'] }, 'sessionId'],
      ['memory_create_session', { kind: 'team-member', parentSessionId: A }, 'parentSessionId'],
      ['memory_forget_fact', { sessionId: A, factId: alphaPrivate }, 'sessionId'],
      ['memory_forget_fact', { sessionId: B, factId: alphaPrivate }, 'factId'],
      ['memory_remember', { sessionId: A, text: 'Injected by bravo', kind: 'fact', scope: 'session' }, 'sessionId'],
      ['memory_recall', { sessionId: A, text: 'Nightjar launch codename' }, 'sessionId'],
      ['memory_begin_turn', { sessionId: A, userText: 'tell me the codename' }, 'sessionId'],
      ['memory_complete_turn', { sessionId: A, assistantText: 'forged answer' }, 'sessionId'],
      ['memory_compact_context', { sessionId: A }, 'sessionId'],
      ['memory_get_checkpoint', { sessionId: A }, 'sessionId'],
      ['memory_session_scopes', { sessionId: A }, 'sessionId'],
      ['memory_extraction_status', { sessionId: A }, 'sessionId'],
    ];
    for (const [tool, args, field] of attempts) {
      const r = await bravo.raw(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(errorMeta(r), tool).toMatchObject({ code: 'not_found', field });
    }
    // Exactly the answer a session that does not exist gets.
    const missing = await bravo.raw('memory_list_facts', { sessionId: '01a00000-0000-7000-8000-000000000000' });
    expect(errorMeta(missing)?.code).toBe('not_found');
    expect(digest(home.dir)).toBe(before);
    // Alpha's own connection still works on it.
    const mine = await alpha.call('memory_list_facts', { sessionId: A });
    expect(mine.facts.map((f: { id: string }) => f.id)).toContain(alphaPrivate);
  });

  it('creates sessions only inside the declared context', async () => {
    const before = digest(home.dir);
    const other = await bravo.raw('memory_create_session', { projectId: 'alpha' });
    expect(errorMeta(other)).toMatchObject({ code: 'invalid_input', field: 'projectId' });
    const folder = await bravo.raw('memory_create_session', { folderId: 'alpha-docs' });
    expect(errorMeta(folder)).toMatchObject({ code: 'invalid_input', field: 'folderId' });
    const chosen = await bravo.raw('memory_create_session', { id: A });
    expect(errorMeta(chosen)).toMatchObject({ code: 'invalid_input', field: 'id' });
    expect(digest(home.dir)).toBe(before);
    const member = await bravo.call('memory_create_session', { kind: 'team-member', parentSessionId: B });
    expect(member).toMatchObject({ projectId: 'bravo', parentSessionId: B });
  });

  it("keeps the owner's doors whole: the CLI reads alpha, and the HTTP door resolves bravo's citation", async () => {
    const shown = runCli(['sessions', 'show', '--session', A, '--home', home.dir, '--json']);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Nightjar rollout plan');

    const recalled = await bravo.call('memory_recall', { sessionId: B, text: 'do I prefer tabs or spaces' });
    const ref = recalled.facts[0].citation.ref as string;
    await Promise.all([alpha.close(), bravo.close()]);
    const owner = openTestEngine({ home: home.dir });
    const server = await startHttpServer({ engine: owner.engine, port: 0, rendererDir: null });
    try {
      const post = (name: string, input: unknown) =>
        fetch(`${server.url}/api/commands/${name}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(input),
        });
      const resolved = await post('citations.resolve', { ref });
      expect(resolved.status).toBe(200);
      expect(await resolved.json()).toMatchObject({ ref, sessionId: A, sessionTitle: 'Alpha work' });
      const forged = await post('citations.resolve', { ref: ref.slice(0, -2) + (ref.endsWith('AA') ? 'BB' : 'AA') });
      expect(forged.status).toBe(404);
    } finally {
      await server.close();
      await owner.engine.close();
    }
  });
});

describe('a connection that declares nothing, and one whose client offers roots', () => {
  const home = tempHome('evoflux-isolation-roots-');
  afterAll(() => home.cleanup());

  it('acts only on sessions it created; with roots, only inside them', async () => {
    const workspace = path.join(home.dir, 'repos', 'gamma');
    mkdirSync(path.join(workspace, 'sub'), { recursive: true });
    const seeded = runCli([
      'sessions',
      'add',
      '--workspace',
      path.join(workspace, 'sub'),
      '--title',
      'owner on gamma',
      '--home',
      home.dir,
      '--json',
    ]).json().id as string;
    const elsewhere = runCli(['sessions', 'add', '--project', 'delta', '--home', home.dir, '--json']).json()
      .id as string;

    const [plain, other, rooted] = await Promise.all([
      connectMcp(home.dir),
      connectMcp(home.dir),
      connectMcp(home.dir, [], {}, { roots: [pathToFileURL(workspace).href] }),
    ]);
    try {
      const refused = await plain.raw('memory_create_session', { projectId: 'delta' });
      expect(errorMeta(refused)).toMatchObject({ code: 'invalid_input', field: 'projectId' });
      const own = await plain.call('memory_create_session', { title: 'scratch' });
      expect(own).toMatchObject({ projectId: null, workspace: null, folderId: null });
      await plain.call('memory_remember', { sessionId: own.id, text: 'Scratch notes live here', scope: 'session' });
      expect((await plain.call('memory_list_facts', { sessionId: own.id })).facts).toHaveLength(1);
      for (const id of [seeded, elsewhere]) {
        expect(errorMeta(await plain.raw('memory_list_facts', { sessionId: id }))?.code).toBe('not_found');
      }
      // Another undeclared connection does not reach what the first one created.
      expect(errorMeta(await other.raw('memory_list_facts', { sessionId: own.id }))?.code).toBe('not_found');

      const inRoot = await rooted.call('memory_create_session', { title: 'rooted' });
      expect(inRoot.workspace).toBe(workspace);
      expect((await rooted.call('memory_session_scopes', { sessionId: seeded })).sessionId).toBe(seeded);
      for (const id of [elsewhere, own.id]) {
        expect(errorMeta(await rooted.raw('memory_list_facts', { sessionId: id }))?.code).toBe('not_found');
      }
      const outside = await rooted.raw('memory_create_session', { workspace: path.join(home.dir, 'repos') });
      expect(errorMeta(outside)).toMatchObject({ code: 'invalid_input', field: 'workspace' });
    } finally {
      await Promise.allSettled([plain.close(), other.close(), rooted.close()]);
    }
  });
});
