import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWriter, writeTx, type Db } from '../../src/main/store/db';
import { BackgroundCheckpoints, WRITES_PER_CHECKPOINT } from '../../src/main/workers/background-checkpoints';
import { rest } from '../../src/main/rest-when-quiet';
import { openTestEngine, tempHome } from '../helpers/home';

const CHILD = path.resolve(__dirname, '../fixtures/wal-checkpoint-child.ts');
const PAGE_ROWS = 'CREATE TABLE rows_of_pages (n INTEGER PRIMARY KEY, body BLOB NOT NULL)';

const homes: { cleanup(): void }[] = [];
afterEach(() => homes.splice(0).forEach((h) => h.cleanup()));

/** A migrated store whose writer never checkpoints by itself: whatever bounds its WAL is the checkpointer. */
function writerWithoutAutoCheckpoint(): { db: Db; file: string } {
  const home = tempHome();
  homes.push(home);
  const file = path.join(home.dir, 'memory.db');
  const db = openWriter(file);
  db.pragma('wal_autocheckpoint = 0');
  db.exec(PAGE_ROWS);
  // Both sides start from an empty WAL (the migrations wrote ~1 MB of it).
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { db, file };
}

/** `count` write transactions of ~3 pages each, a turn of the event loop apart (as requests come). */
async function writeRows(db: Db, count: number, afterEach: () => Promise<void> = async () => {}): Promise<void> {
  const insert = db.prepare('INSERT INTO rows_of_pages (body) VALUES (randomblob(10000))');
  for (let i = 0; i < count; i++) {
    writeTx(db, () => insert.run());
    await afterEach();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The engine's part a checkpointer uses; the tests close it themselves. */
const host = (db: Db, warnings: string[] = []) => ({
  db,
  log: { warn: (m: string) => warnings.push(m) },
  onClose: () => {},
});

/** A checkpoint after every `writes` transactions, whatever they take (no test depends on the machine's speed). */
const every = (writes: number) => ({ writes, longWriteMs: Infinity });

const walBytes = (file: string) => statSync(`${file}-wal`).size;

describe('background WAL checkpoints', () => {
  it('copy the WAL from their own thread, so the WAL starts over instead of growing', async () => {
    const without = writerWithoutAutoCheckpoint();
    await writeRows(without.db, 200);
    const grown = walBytes(without.file);
    without.db.close();

    const { db, file } = writerWithoutAutoCheckpoint();
    const warnings: string[] = [];
    const checkpoints = new BackgroundCheckpoints(host(db, warnings), { dbPath: file }, every(4)).start();
    await writeRows(db, 200, () => checkpoints.settled());
    await checkpoints.close();

    // 200 transactions of ~3 pages: ~2.4 MB of WAL that nothing copied back.
    expect(grown).toBeGreaterThan(2_000_000);
    // With a checkpoint every 4 of them the log starts over each time: a few transactions long.
    expect(walBytes(file)).toBeLessThan(grown / 10);
    expect(checkpoints.stats).toMatchObject({ runs: 50, failures: 0, lastError: null });
    expect(checkpoints.stats.last!.busy).toBe(false);
    expect(checkpoints.stats.last!.copiedFrames).toBe(checkpoints.stats.last!.walFrames);
    expect(warnings).toEqual([]);
    expect(db.prepare('SELECT count(*) AS n FROM rows_of_pages').get()).toEqual({ n: 200 });
    db.close();
  });

  it('count only their own connection’s transactions and start their thread again after a rest', async () => {
    const { db, file } = writerWithoutAutoCheckpoint();
    const other = writerWithoutAutoCheckpoint();
    const checkpoints = new BackgroundCheckpoints(host(db), { dbPath: file }, every(4)).start();
    await writeRows(other.db, 12);
    await checkpoints.settled();
    expect(checkpoints.stats.runs).toBe(0);

    await writeRows(db, 4, () => checkpoints.settled());
    expect(checkpoints.stats.runs).toBe(1);
    expect(checkpoints.rest()).toBe(true);
    expect(checkpoints.rest()).toBe(false);
    await writeRows(db, 4, () => checkpoints.settled());
    expect(checkpoints.stats).toMatchObject({ runs: 2, failures: 0 });
    await checkpoints.close();
    // Closed: writes no longer start one.
    await writeRows(db, 8);
    expect(checkpoints.stats.runs).toBe(2);
    db.close();
    other.db.close();
  });

  it('run one after any write transaction that took long, and one at a time', async () => {
    const { db, file } = writerWithoutAutoCheckpoint();
    // Every write counts as long here: each is followed by a checkpoint of its own.
    const checkpoints = new BackgroundCheckpoints(host(db), { dbPath: file }, { writes: 1000, longWriteMs: 0 }).start();
    await writeRows(db, 6, () => checkpoints.settled());
    expect(checkpoints.stats.runs).toBe(6);
    // Writes while one runs owe one more after it, not one each.
    const insert = db.prepare('INSERT INTO rows_of_pages (body) VALUES (randomblob(10000))');
    for (let i = 0; i < 5; i++) writeTx(db, () => insert.run());
    await checkpoints.settled();
    expect(checkpoints.stats.runs).toBe(8);
    expect(checkpoints.stats.last!.copiedFrames).toBe(checkpoints.stats.last!.walFrames);
    await checkpoints.close();
    db.close();
  });

  it('catch up with a long log a few times in a row, until a write can start it over', async () => {
    const { db, file } = writerWithoutAutoCheckpoint();
    const checkpoints = new BackgroundCheckpoints(host(db), { dbPath: file }, every(1)).start();
    // One write of ~1,300 pages: its checkpoint finds a long log and the next ones chase it, four
    // at most, as no write comes to start the log over.
    writeTx(db, () => db.prepare('INSERT INTO rows_of_pages (body) VALUES (randomblob(5000000))').run());
    await checkpoints.settled();
    expect(checkpoints.stats.runs).toBe(5);
    expect(checkpoints.stats.last!.walFrames).toBeGreaterThan(1024);
    // The log is copied: the next write starts it over, and its checkpoint finds a short one.
    await writeRows(db, 1, () => checkpoints.settled());
    expect(checkpoints.stats.runs).toBe(6);
    expect(checkpoints.stats.last!.walFrames).toBeLessThan(10);
    await checkpoints.close();
    db.close();
  });

  it('report a failing checkpoint once, and the writes go on', async () => {
    const { db, file } = writerWithoutAutoCheckpoint();
    const warnings: string[] = [];
    const missing = `${file}.gone`;
    const checkpoints = new BackgroundCheckpoints(host(db, warnings), { dbPath: missing }, every(2)).start();
    await writeRows(db, 10, () => checkpoints.settled());
    await checkpoints.close();
    expect(checkpoints.stats.runs).toBe(5);
    expect(checkpoints.stats.failures).toBe(5);
    expect(checkpoints.stats.lastError).toMatch(/unable to open database file/);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/background WAL checkpoint failed \(1 so far\)/);
    expect(db.prepare('SELECT count(*) AS n FROM rows_of_pages').get()).toEqual({ n: 10 });
    db.close();
  });

  it('run in an engine: doctor counts them and a resting process stops their thread', async () => {
    const t = openTestEngine();
    try {
      const session = await t.run('sessions.create', { projectId: 'p' });
      for (let i = 0; i < WRITES_PER_CHECKPOINT; i++) {
        await t.run('facts.add', { sessionId: session.id, text: `fact number ${i} about the build`, scope: 'project' });
      }
      await t.engine.walCheckpoints.settled();
      const report = await t.run('system.doctor', {});
      expect(report.database.walCheckpoints.runs).toBeGreaterThanOrEqual(1);
      expect(report.database.walCheckpoints).toMatchObject({ failures: 0, lastError: null });
      expect(rest(t.engine).workers).toBeGreaterThanOrEqual(1);
      expect(t.engine.walCheckpoints.rest()).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('lose nothing when the process is killed while one copies', async () => {
    const home = tempHome();
    homes.push(home);
    const file = path.join(home.dir, 'memory.db');
    openWriter(file).close();
    let committed = 0;
    const signal = await new Promise<NodeJS.Signals | null>((resolve, reject) => {
      const child = spawn(process.execPath, ['--require', 'tsx/cjs', CHILD, file], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        for (const m of out.matchAll(/committed (\d+)/g)) committed = Math.max(committed, Number(m[1]));
        if (out.includes('mid ')) child.kill('SIGKILL');
        if (out.includes('done')) reject(new Error('child finished before it could be killed'));
      });
      child.on('exit', (_code, sig) => {
        clearTimeout(guard);
        resolve(sig);
      });
    });
    expect(signal).toBe('SIGKILL');
    expect(committed).toBeGreaterThanOrEqual(20);

    const db = openWriter(file);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const { rows, newest } = db.prepare('SELECT count(*) AS rows, max(n) AS newest FROM crash_rows').get() as {
      rows: number;
      newest: number;
    };
    // Every commit the child reported is there, and no row is missing below the newest.
    expect(newest).toBeGreaterThanOrEqual(committed);
    expect(rows).toBe(newest);
    db.close();
  });
});
