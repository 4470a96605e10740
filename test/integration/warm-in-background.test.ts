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
  it('loads the extractor model after the first completed response, once the doors have been quiet for a second', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    t = openTestEngine();
    warmInBackground(t.engine);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(loaded()).toBe(false); // no turn completed: search and recall alone never need it
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    await t.run('turns.begin', { sessionId: s.id, userText: 'how do we deploy the billing service' });
    t.engine.requests.enter(); // another request still being served
    await t.run('turns.complete', { sessionId: s.id, assistantText: 'With docker compose.' });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(loaded()).toBe(false);
    t.engine.requests.leave();
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() => expect(loaded()).toBe(true), { timeout: 10_000, interval: 20 });
  });
});
