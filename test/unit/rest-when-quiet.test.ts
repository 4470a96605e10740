import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openWriter, releaseMemoryMap, type Db } from '../../src/main/store/db';
import { RequestGate } from '../../src/main/request-gate';
import { setFlagsFromString, getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compactHeap, REST_AFTER_MS, rest, restWhenQuiet } from '../../src/main/rest-when-quiet';
import type { Engine } from '../../src/main/engine';
import { tempHome } from '../helpers/home';

/** Whether this process maps the file itself (not its -shm or -wal neighbours). */
const mapped = (file: string) =>
  readFileSync('/proc/self/maps', 'utf8')
    .split('\n')
    .some((line) => line.endsWith(` ${file}`));

let db: Db | null = null;
let home: ReturnType<typeof tempHome> | null = null;
afterEach(() => {
  vi.useRealTimers();
  db?.close();
  home?.cleanup();
  db = null;
  home = null;
});

function openStore(): { db: Db; file: string } {
  home = tempHome();
  const file = path.join(home.dir, 'memory.db');
  db = openWriter(file);
  db.exec('CREATE TABLE t (x TEXT)');
  db.prepare('INSERT INTO t VALUES (?)').run('kafka');
  // Into memory.db itself: pages still in the WAL are read from there, not through the map.
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { db, file };
}

describe('releaseMemoryMap', () => {
  it("unmaps the writer's memory map, which SQLite maps again on the next read", () => {
    const { db, file } = openStore();
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    expect(mapped(file)).toBe(true);
    releaseMemoryMap(db);
    expect(mapped(file)).toBe(false);
    expect(db.pragma('mmap_size', { simple: true })).toBe(268435456);
    expect(db.prepare('SELECT x FROM t').get()).toEqual({ x: 'kafka' });
    expect(mapped(file)).toBe(true);
  });
});

describe('rest', () => {
  it('stops the workers', () => {
    const { db } = openStore();
    const lane = { rest: () => 2 };
    const extraction = { rest: () => true };
    const engine = { db, readLane: lane, extractionProcess: extraction } as unknown as Engine;
    expect(rest(engine).workers).toBe(3);
  });
});

describe('restWhenQuiet', () => {
  it('rests once after a quiet spell, and again only after the next request', async () => {
    vi.useFakeTimers();
    const { db, file } = openStore();
    const requests = new RequestGate();
    let rests = 0;
    const closers: (() => void)[] = [];
    const engine = {
      db,
      requests,
      readLane: { rest: () => ++rests },
      extractionProcess: { rest: () => false },
      log: { debug: () => {} },
      onClose: (fn: () => void) => closers.push(fn),
    } as unknown as Engine;
    restWhenQuiet(engine);
    requests.enter(); // a request before the spell is over starts it again
    await vi.advanceTimersByTimeAsync(REST_AFTER_MS - 1000);
    requests.leave();
    await vi.advanceTimersByTimeAsync(REST_AFTER_MS - 1000);
    expect(rests).toBe(0);
    db.prepare('SELECT x FROM t').get();
    await vi.advanceTimersByTimeAsync(2000);
    expect(rests).toBe(1);
    expect(mapped(file)).toBe(false);
    await vi.advanceTimersByTimeAsync(5 * REST_AFTER_MS);
    expect(rests).toBe(1);
    requests.enter();
    requests.leave();
    await vi.advanceTimersByTimeAsync(REST_AFTER_MS + 1);
    expect(rests).toBe(2);
    // Once the engine closes, no rest touches its closed database.
    for (const close of closers) close();
    requests.enter();
    requests.leave();
    await vi.advanceTimersByTimeAsync(2 * REST_AFTER_MS);
    expect(rests).toBe(2);
  });
});

describe('compactHeap', () => {
  it('does nothing where Node exposes no collector', () => {
    expect(compactHeap(undefined)).toBe(false);
  });

  it('gives back the pages of an old generation that grew and emptied while the thread was idle', () => {
    // This test process was started without --expose-gc: a context created while the flag is on
    // carries the collector, which is all a server started with the flag has.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    setFlagsFromString('--no-expose-gc');
    collect();
    const before = getHeapStatistics().total_heap_size;
    // Survives young collections into the old generation, then becomes garbage as the function
    // returns: no further allocation follows, so nothing makes V8 collect it by itself.
    const grow = () => {
      const kept: number[][] = [];
      for (let i = 0; i < 4000; i++) kept.push(Array.from({ length: 1000 }, (_, j) => i + j + 0.5));
      return getHeapStatistics().total_heap_size;
    };
    const grown = grow();
    expect(grown - before).toBeGreaterThan(20 * 2 ** 20);
    expect(getHeapStatistics().total_heap_size).toBe(grown);
    expect(compactHeap(collect)).toBe(true);
    expect(getHeapStatistics().total_heap_size).toBeLessThan(before + 8 * 2 ** 20);
  });
});
