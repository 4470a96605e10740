import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources, type TestEngine } from '../helpers/home';
import { runCli } from '../helpers/cli';
import { startServe } from '../helpers/serve';
import { sessionSourceSlug } from '../../src/main/dream/source-page';

/**
 * Forget through real processes, as people run it: the one-shot CLI and a long-running `serve`
 * over HTTP. Afterwards the forgotten words, the session's workspace path and its id are nowhere
 * in memory.db, its WAL or its shared-memory file, and nowhere in the machine-written wiki.
 */
const WORDS = ['Kumquatrix', 'kumquatrix', 'Jubilexor', 'jubilexor'];

function dbBytes(home: string): Buffer {
  return Buffer.concat(
    ['memory.db', 'memory.db-wal', 'memory.db-shm']
      .map((f) => path.join(home, f))
      .filter(existsSync)
      .map((f) => readFileSync(f)),
  );
}

function wikiText(home: string): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else out.push(`${path.relative(home, file)}\n${readFileSync(file, 'utf8')}`);
    }
  };
  walk(path.join(home, 'wiki'));
  return out.join('\n');
}

interface Seeded {
  doomed: string;
  workspace: string;
  /** Every form in which the forgotten session can be written down. */
  traces: string[];
}

/** A session on its own workspace whose transcript and facts carry the marker words, plus bystanders. */
async function seed(t: TestEngine): Promise<Seeded> {
  const workspace = `/srv/yarrowbend-${process.pid}`;
  const doomed = await t.run('sessions.create', { workspace, title: 'Kumquatrix planning' });
  const m = await t.run('messages.add', {
    sessionId: doomed.id,
    role: 'user',
    content: 'Kumquatrix renegotiates the Jubilexor contract',
  });
  await t.run('messages.add', { sessionId: doomed.id, role: 'assistant', content: 'Noted for Kumquatrix.' });
  await t.run('facts.add', {
    sessionId: doomed.id,
    messageId: m.id,
    scope: 'workspace',
    kind: 'decision',
    text: 'Kumquatrix renegotiates the Jubilexor contract',
  });
  await t.run('facts.add', { sessionId: doomed.id, scope: 'session', text: 'Jubilexor pricing stays private' });
  for (let i = 0; i < 40; i++) {
    const s = await t.run('sessions.create', { projectId: `bystander-${i % 4}` });
    await t.run('messages.add', { sessionId: s.id, role: 'user', content: `Bystander note ${i} about Pemberton` });
    await t.run('facts.add', { sessionId: s.id, scope: 'project', text: `Pemberton keeps ledger number ${i}` });
  }
  await t.run('dream.run', { drain: true });
  const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
  return {
    doomed: doomed.id,
    workspace,
    traces: [...WORDS, workspace, hex(workspace), doomed.id, hex(doomed.id), sessionSourceSlug(doomed.id)],
  };
}

function expectGone(home: string, s: Seeded): void {
  const bytes = dbBytes(home);
  for (const trace of s.traces.filter((x) => !x.startsWith('session-'))) {
    expect(bytes.includes(trace), `memory.db* still holds ${trace}`).toBe(false);
  }
  const wiki = wikiText(home);
  for (const trace of s.traces) expect(wiki.includes(trace), `the wiki still holds ${trace}`).toBe(false);
  expect(bytes.includes('Pemberton keeps ledger number 7')).toBe(true);
}

describe('forget leaves no copy behind, through real processes', () => {
  const resources = testResources();
  afterEach(() => resources.release());

  async function seededHome(): Promise<{ home: string; seeded: Seeded }> {
    const home = resources.home();
    const owner = resources.engine({ home });
    const seeded = await seed(owner);
    await owner.engine.close();
    const bytes = dbBytes(home);
    // The test can fail: before the forget every trace is on disk, in the database and the wiki.
    for (const trace of seeded.traces.filter((x) => !x.startsWith('session-'))) {
      expect(bytes.includes(trace), `seeded memory.db lacks ${trace}`).toBe(true);
    }
    expect(wikiText(home)).toContain(sessionSourceSlug(seeded.doomed));
    expect(wikiText(home)).toContain('Kumquatrix');
    return { home, seeded };
  }

  it('the one-shot CLI: `sessions delete` scrubs before it exits, and a later start finds nothing', async () => {
    const { home, seeded } = await seededHome();
    const r = runCli(['sessions', 'delete', '--session', seeded.doomed, '--home', home, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().deleted.map((f: { text: string }) => f.text)).toContain(
      'Kumquatrix renegotiates the Jubilexor contract',
    );
    expectGone(home, seeded);
    const later = runCli(['facts', 'list', '--home', home, '--json', '--limit', '500']);
    expect(later.status, later.stderr).toBe(0);
    expect(later.stdout).not.toContain('Kumquatrix');
    expectGone(home, seeded);
  });

  it('a running `serve`: forgetting over HTTP is scrubbed while it runs and after it stops', async () => {
    const { home, seeded } = await seededHome();
    const serve = await startServe(home);
    try {
      const r = await serve.call('sessions.delete', { sessionId: seeded.doomed });
      expect(r.status).toBe(200);
      // Index maintenance finishes the scrub once writes settle (a few seconds): wait for it, bounded.
      const deadline = Date.now() + 60_000;
      while (WORDS.some((w) => dbBytes(home).includes(w)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expectGone(home, seeded);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
    expectGone(home, seeded);
  });
});
