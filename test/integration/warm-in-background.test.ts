import { afterEach, describe, expect, it } from 'vitest';
import { warmInBackground } from '../../src/main/api/long-lived';
import { analyze } from '../../src/main/memory/extraction/nlp';
import { rest } from '../../src/main/rest-when-quiet';
import { openTestEngine, type TestEngine } from '../helpers/home';

let t: TestEngine | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

/** Whether this thread has the English model loaded (analyze throws until it has). */
const loadedHere = () => {
  try {
    return analyze('We deploy on fridays.').length === 1;
  } catch {
    return false;
  }
};

async function turn(engine: TestEngine, sessionId: string, n: number) {
  await engine.run('turns.begin', { sessionId, userText: `We decided to use tool number ${n}.` });
  await engine.run('turns.complete', { sessionId, assistantText: `Done with ${n}.` });
  await Promise.all(engine.engine.extraction.pending());
}

describe('warmInBackground', () => {
  it("never loads the extractor's English model on the thread that answers agents: extraction runs in its own process, which rest stops", async () => {
    t = openTestEngine();
    warmInBackground(t.engine);
    const s = await t.run('sessions.create', { projectId: 'alpha' });
    for (let n = 1; n <= 3; n++) await turn(t, s.id, n); // the third response sets off extraction
    const facts = await t.run('facts.list', { scope: 'project', scopeKey: 'alpha', limit: 10 });
    expect(facts.facts.map((f) => f.text).sort()).toEqual([1, 2, 3].map((n) => `We decided to use tool number ${n}.`));
    expect(t.engine.extractionProcess.running).toBe(true);
    expect(loadedHere()).toBe(false);
    // Resting stops the process, which gives the model's memory back; the next extraction starts it again.
    expect(rest(t.engine).workers).toBeGreaterThanOrEqual(1);
    expect(t.engine.extractionProcess.running).toBe(false);
    for (let n = 4; n <= 13; n++) await turn(t, s.id, n);
    expect((await t.run('facts.list', { scope: 'project', scopeKey: 'alpha', limit: 20 })).facts).toHaveLength(11);
    expect(loadedHere()).toBe(false);
  });
});
