import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources, type TestEngine } from '../helpers/home';
import { truncateWal } from '../../src/main/store/db';
import { RecallIndexMaintenance } from '../../src/main/memory/recall/index-maintenance';

/** Everything SQLite keeps on disk for the home's database, as bytes. */
const storeBytes = (home: string): Buffer =>
  Buffer.concat(
    ['memory.db', 'memory.db-wal']
      .map((f) => `${home}/${f}`)
      .filter(existsSync)
      .map((f) => readFileSync(f)),
  );

describe('forget leaves no copy of what it forgot on disk', () => {
  const resources = testResources();
  afterEach(() => resources.release());

  /** A session whose transcript and fact carry a marker, and a bystander that must survive. */
  async function seed(engine: TestEngine) {
    const doomed = await engine.run('sessions.create', { workspace: '/srv/quillfeather', title: 'Quillfeather talks' });
    const bystander = await engine.run('sessions.create', { projectId: 'p' });
    const m = await engine.run('messages.add', {
      sessionId: doomed.id,
      role: 'user',
      content: 'Quillfeather renegotiates the Marzipan contract',
    });
    await engine.run('facts.add', {
      sessionId: doomed.id,
      messageId: m.id,
      scope: 'workspace',
      text: 'Quillfeather is renegotiating the Marzipan contract',
    });
    await engine.run('facts.add', {
      sessionId: bystander.id,
      scope: 'project',
      text: 'Bystander keeps its Pemberton notes',
    });
    // Everything so far is checkpointed into memory.db, where a plain delete would leave it in free space.
    expect(truncateWal(engine.engine.db)).toBe(true);
    expect(storeBytes(engine.home).includes('Marzipan contract')).toBe(true);
    expect(storeBytes(engine.home).includes(Buffer.from('/srv/quillfeather').toString('hex'))).toBe(true);
    return doomed;
  }

  it('after the maintenance pass, neither memory.db nor its WAL holds the forgotten text or path', async () => {
    const t = resources.engine();
    const doomed = await seed(t);
    await t.run('sessions.delete', { sessionId: doomed.id });
    await new RecallIndexMaintenance(t.engine).runAll();
    const bytes = storeBytes(t.home);
    // The full-text indexes tag rows with hex scope keys: those go too.
    const hexTag = Buffer.from('/srv/quillfeather').toString('hex');
    for (const gone of ['Marzipan', 'marzipan', 'Quillfeather', 'quillfeather', '/srv/quillfeather', hexTag]) {
      expect(bytes.includes(gone), gone).toBe(false);
    }
    expect(bytes.includes('Pemberton notes')).toBe(true);
  });

  it('a process that forgets and exits at once (the CLI) scrubs before it closes', async () => {
    const home = resources.home();
    const cli = resources.engine({ home });
    const doomed = await seed(cli);
    await cli.run('facts.delete', {
      factId: (await cli.run('facts.list', { scope: 'workspace', limit: 1 })).facts[0]!.id,
    });
    await cli.run('sessions.delete', { sessionId: doomed.id });
    await cli.engine.close();
    expect(storeBytes(home).includes('Marzipan')).toBe(false);
    const t = resources.engine({ home });
    expect((await t.run('facts.list', { limit: 10 })).facts.map((f) => f.text)).toEqual([
      'Bystander keeps its Pemberton notes',
    ]);
  });
});
