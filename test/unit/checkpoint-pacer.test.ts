import { afterEach, describe, expect, it } from 'vitest';
import { testResources } from '../helpers/home';
import { paceCheckpoints } from '../../src/main/store/checkpoint-pacer';
import { writeTx } from '../../src/main/store/db';

const res = testResources();
afterEach(() => res.release());

describe('checkpoint pacer', () => {
  it('turns the automatic checkpoint off while any pacer runs and checkpoints between transactions', async () => {
    const { engine } = res.engine();
    const db = engine.db;
    const auto = () => db.pragma('wal_autocheckpoint', { simple: true });
    const before = auto();
    const first = paceCheckpoints(db, 3);
    const second = paceCheckpoints(db, 3);
    expect(auto()).toBe(0);
    const walPages = () => (db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
    db.exec('CREATE TABLE t (x)');
    for (let i = 0; i < 2; i++) writeTx(db, () => db.prepare('INSERT INTO t VALUES (?)').run(i));
    first.step(); // two transactions: not yet
    writeTx(db, () => db.prepare('INSERT INTO t VALUES (3)').run());
    first.step();
    expect(walPages()).toBeGreaterThan(0);
    first.done();
    expect(auto()).toBe(0);
    second.done();
    second.done();
    expect(auto()).toBe(before);
  });
});
