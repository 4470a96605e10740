import { afterEach, describe, expect, it, vi } from 'vitest';
import { warmInBackground } from '../../src/main/api/long-lived';
import { analyze } from '../../src/main/memory/extraction/nlp';
import { openTestEngine, type TestEngine } from '../helpers/home';

let t: TestEngine | null = null;
afterEach(async () => {
  vi.useRealTimers();
  await t?.close();
  t = null;
});

const loaded = () => {
  try {
    return analyze('We deploy on fridays.').length === 1;
  } catch {
    return false;
  }
};

describe('warmInBackground', () => {
  it('loads the extractor model only once the doors have been quiet for a second', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    t = openTestEngine();
    t.engine.requests.enter(); // a request being served
    warmInBackground(t.engine);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(loaded()).toBe(false);
    t.engine.requests.leave();
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() => expect(loaded()).toBe(true), { timeout: 10_000, interval: 20 });
  });
});
