import { describe, expect, it } from 'vitest';
import { progressLine } from '../../src/main/cli/progress';

describe('the progress line', () => {
  it('redraws at most ten times a second, always draws the end, and finishes with a newline', () => {
    let now = 0;
    const chunks: string[] = [];
    const line = progressLine(
      (c) => chunks.push(c),
      () => now,
    );
    const job = { job: 'legacy import', unit: 'sessions', total: 400 };
    line.update({ ...job, done: 1 });
    now = 50;
    line.update({ ...job, done: 2 }); // too soon: skipped
    now = 1000;
    line.update({ ...job, done: 200 });
    now = 1010;
    line.update({ ...job, done: 400 }); // the last one is drawn however soon
    line.end();
    expect(chunks).toEqual([
      '\rlegacy import: 1/400 sessions (0%)\x1b[K',
      '\rlegacy import: 200/400 sessions (50%, 200/s)\x1b[K',
      '\rlegacy import: 400/400 sessions (100%, 396/s)\x1b[K',
      '\n',
    ]);
  });

  it('starts a new line for a new job and draws nothing when no job reported', () => {
    let now = 0;
    const chunks: string[] = [];
    const line = progressLine(
      (c) => chunks.push(c),
      () => now,
    );
    line.end();
    expect(chunks).toEqual([]);
    line.update({ job: 'dream', unit: 'items', done: 4, total: 8 });
    now = 500;
    line.update({ job: 'forget clean-up', unit: 'index rows', done: 500, total: 500 });
    line.end();
    expect(chunks).toEqual([
      '\rdream: 4/8 items (50%)\x1b[K',
      '\n',
      '\rforget clean-up: 500/500 index rows (100%)\x1b[K',
      '\n',
    ]);
  });
});
