import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openWriter, writeTx, type Db } from '../../src/main/store/db';
import { RequestGate } from '../../src/main/request-gate';
import { QUIET_MS, WalCheckpoints, WRITES_PER_CHECKPOINT } from '../../src/main/wal-checkpoints';
import { openTestEngine, tempHome } from '../helpers/home';

const CHILD = path.resolve(__dirname, '../fixtures/wal-checkpoint-child.ts');

const homes: { cleanup(): void }[] = [];
afterEach(() => homes.splice(0).forEach((h) => h.cleanup()));

/** A migrated store whose writer never checkpoints by itself: whatever bounds its WAL is the checkpoints. */
function writerWithoutAutoCheckpoint(): { db: Db; file: string } {
  const home = tempHome();
  homes.push(home);
  const file = path.join(home.dir, 'memory.db');
  const db = openWriter(file);
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE rows_of_pages (n INTEGER PRIMARY KEY, body BLOB NOT NULL)');
  // Both sides start from an empty WAL (the migrations wrote ~1 MB of it).
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { db, file };
}

/** The engine's part the checkpoints use; the tests close them themselves. */
const host = (db: Db, requests = new RequestGate(), warnings: string[] = []) => ({
  db,
  requests,
  log: { warn: (m: string) => warnings.push(m) },
  onClose: () => {},
});

/**
 * A checkpoint after every `writes` transactions, whatever they take, as soon as no request is in
 * flight (no test depends on the machine's speed or waits for a quiet spell in real time).
 */
const every = (writes: number) => ({ writes, longWriteMs: Infinity, quietMs: 0 });

/** `count` write transactions of ~3 pages each, a turn of the event loop apart (as requests come). */
async function writeRows(db: Db, count: number): Promise<void> {
  const insert = db.prepare('INSERT INTO rows_of_pages (body) VALUES (randomblob(10000))');
  for (let i = 0; i < count; i++) {
    writeTx(db, () => insert.run());
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const walBytes = (file: string) => statSync(`${file}-wal`).size;

describe('WAL checkpoints between requests', () => {
  it('copy the WAL every few writes, so it starts over instead of growing', async () => {
    const without = writerWithoutAutoCheckpoint();
    await writeRows(without.db, 200);
    const grown = walBytes(without.file);
    without.db.close();

    const { db, file } = writerWithoutAutoCheckpoint();
    const warnings: string[] = [];
    const checkpoints = new WalCheckpoints(host(db, new RequestGate(), warnings), every(4)).start();
    await writeRows(db, 200);
    checkpoints.close();

    // 200 transactions of ~3 pages: ~2.4 MB of WAL that nothing copied back.
    expect(grown).toBeGreaterThan(2_000_000);
    // With a checkpoint every 4 of them the log starts over each time: a few transactions long.
    expect(walBytes(file)).toBeLessThan(grown / 10);
    expect(checkpoints.stats).toMatchObject({ runs: 50, failures: 0, lastError: null });
    expect(checkpoints.stats.last).toMatchObject({ busy: false });
    expect(checkpoints.stats.last!.copiedFrames).toBe(checkpoints.stats.last!.walFrames);
    expect(warnings).toEqual([]);
    expect(db.prepare('SELECT count(*) AS n FROM rows_of_pages').get()).toEqual({ n: 200 });
    db.close();
  });

  it('never run while a request is in flight, and run at the first moment none is', async () => {
    const { db } = writerWithoutAutoCheckpoint();
    const requests = new RequestGate();
    const checkpoints = new WalCheckpoints(host(db, requests), every(4)).start();
    requests.enter();
    await writeRows(db, 12);
    expect(checkpoints.stats.runs).toBe(0);
    requests.enter(); // a second request overlaps the first
    requests.leave();
    await writeRows(db, 1);
    expect(checkpoints.stats.runs).toBe(0);
    requests.leave();
    await checkpoints.settled();
    // One checkpoint for all 13 writes: it was owed once, and copied everything.
    expect(checkpoints.stats.runs).toBe(1);
    expect(checkpoints.stats.last!.copiedFrames).toBe(checkpoints.stats.last!.walFrames);
    checkpoints.close();
    db.close();
  });

  it('wait for a quiet spell after the last request, so calls back to back never wait behind one', async () => {
    const { db } = writerWithoutAutoCheckpoint();
    const requests = new RequestGate();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const checkpoints = new WalCheckpoints(host(db, requests), {
        writes: 4,
        longWriteMs: Infinity,
        quietMs: 100,
      }).start();
      // A request writes four times and leaves; another comes 60 ms later and leaves at once.
      requests.enter();
      await writeRows(db, 4);
      requests.leave();
      await vi.advanceTimersByTimeAsync(60);
      requests.enter();
      requests.leave();
      await vi.advanceTimersByTimeAsync(99);
      expect(checkpoints.stats.runs).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(checkpoints.stats.runs).toBe(1);
      // Closing ends a wait for quiet at once (a CLI command exits without it), with nothing copied.
      requests.enter();
      await writeRows(db, 4);
      checkpoints.close();
      expect(checkpoints.stats.runs).toBe(1);
      requests.leave();
    } finally {
      vi.useRealTimers();
      db.close();
    }
  });

  it('count only their own connection’s transactions, and one long one makes a checkpoint due', async () => {
    const { db } = writerWithoutAutoCheckpoint();
    const other = writerWithoutAutoCheckpoint();
    const counting = new WalCheckpoints(host(db), every(4)).start();
    await writeRows(other.db, 12);
    await counting.settled();
    expect(counting.stats.runs).toBe(0);
    counting.close();
    // Closed: writes no longer make one due.
    await writeRows(db, 8);
    expect(counting.stats.runs).toBe(0);

    // Every write counts as long here: each is followed by a checkpoint of its own.
    const long = new WalCheckpoints(host(db), { writes: 1000, longWriteMs: 0, quietMs: 0 }).start();
    await writeRows(db, 3);
    await long.settled();
    expect(long.stats.runs).toBe(3);
    long.close();
    db.close();
    other.db.close();
  });

  it('report a failing checkpoint once, and the writes go on', async () => {
    const { db } = writerWithoutAutoCheckpoint();
    const warnings: string[] = [];
    // The disk refuses the copy (fault injected into this connection's checkpoint statement only).
    const pragma = db.pragma.bind(db);
    db.pragma = ((source: string, options?: Parameters<Db['pragma']>[1]) => {
      if (source.startsWith('wal_checkpoint')) throw new Error('disk I/O error');
      return pragma(source, options);
    }) as Db['pragma'];
    const checkpoints = new WalCheckpoints(host(db, new RequestGate(), warnings), every(2)).start();
    await writeRows(db, 10);
    checkpoints.close();
    expect(checkpoints.stats).toMatchObject({ runs: 5, failures: 5, lastError: 'disk I/O error' });
    expect(warnings).toEqual(['WAL checkpoint failed (1 so far): disk I/O error']);
    expect(db.prepare('SELECT count(*) AS n FROM rows_of_pages').get()).toEqual({ n: 10 });
    db.close();
  });

  it('run in an engine once its requests pause, and doctor counts them', async () => {
    const t = openTestEngine();
    try {
      const session = await t.run('sessions.create', { projectId: 'p' });
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      for (let i = 0; i < WRITES_PER_CHECKPOINT; i++) {
        await t.run('facts.add', { sessionId: session.id, text: `fact number ${i} about the build`, scope: 'project' });
      }
      await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
      expect(t.engine.walCheckpoints.stats.runs).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      vi.useRealTimers();
      const report = await t.run('system.doctor', {});
      expect(report.database.walCheckpoints).toMatchObject({ runs: 1, failures: 0, lastError: null });
      expect(report.database.walCheckpoints.lastMs).toBeGreaterThan(0);
    } finally {
      vi.useRealTimers();
      await t.close();
    }
  });

  it('lose nothing when the process is killed while it writes and copies', async () => {
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
        // Its checkpoint runs right after this commit.
        if (committed >= 20) child.kill('SIGKILL');
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
