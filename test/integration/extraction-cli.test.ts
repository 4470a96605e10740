import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { tempHome } from '../helpers/home';

const home = tempHome();
afterAll(() => home.cleanup());
const cli = (...args: string[]) => runCli([...args, '--home', home.dir]);

describe('extract CLI', () => {
  it('messages add drives the cadence; extract status/run/retry show and drive extraction', () => {
    const s = cli('sessions', 'add', '--project', 'p1', '--json').json();
    expect(
      cli('messages', 'add', '--session', s.id, '--role', 'user', 'From now on, answer in Vietnamese.').status,
    ).toBe(0);
    expect(cli('messages', 'add', '--session', s.id, '--role', 'assistant', 'Vâng.').status).toBe(0);
    expect(
      cli('messages', 'add', '--session', s.id, '--role', 'assistant', 'calling a tool', '--tool-round').status,
    ).toBe(0);
    expect(
      cli('messages', 'add', '--session', s.id, '--role', 'user', 'We decided to use SQLite for the cache.').status,
    ).toBe(0);
    expect(cli('messages', 'add', '--session', s.id, '--role', 'assistant', 'Được.').status).toBe(0);
    let status = cli('extract', 'status', '--session', s.id, '--json').json();
    expect(status.sessions[0]).toMatchObject({
      status: 'never-run',
      completedResponses: 2,
      due: false,
      pendingMessages: 4,
    });

    // The 3rd completed response: the CLI process extracts before it exits.
    expect(cli('messages', 'add', '--session', s.id, '--role', 'assistant', 'Xong.').status).toBe(0);
    status = cli('extract', 'status', '--json').json();
    expect(status.extractor).toBe('rules');
    expect(status.sessions).toEqual([
      expect.objectContaining({
        sessionId: s.id,
        status: 'idle',
        cursorSeq: 6,
        lastResponseCount: 3,
        factsStored: 2,
        attempts: 1,
      }),
    ]);
    const text = cli('extract', 'status');
    expect(text.stdout).toMatch(new RegExp(`${s.id}\\s+idle\\s+#6\\s+3/3`));

    const run = cli('extract', 'run', '--session', s.id);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^nothing-new \(rules\)/);

    const retry = cli('extract', 'retry', '--session', s.id);
    expect(retry.status).toBe(1);
    expect(retry.stderr).toMatch(/is idle, not failed: nothing to retry/);

    const facts = cli('facts', 'list', '--json')
      .json()
      .facts.map((f: { scope: string; text: string }) => `${f.scope}: ${f.text}`);
    expect(facts.sort()).toEqual(['project: We decided to use SQLite for the cache.', 'user: Answer in Vietnamese.']);
  });

  it('bad input names the field and changes nothing', () => {
    const missing = cli('extract', 'run');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/--session-id: is required/);
    const unknown = cli('extract', 'run', '--session', 'nope', '--json');
    expect(unknown.status).toBe(1);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({ code: 'not_found', field: 'sessionId' });
  });
});
