import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/home';
import { runCli } from '../helpers/cli';
import { startServe, type Served } from '../e2e/support';

describe('evoflux-memory serve', () => {
  let served: Served | null = null;
  let home: ReturnType<typeof tempHome> | null = null;
  afterEach(async () => {
    await served?.stop();
    served = null;
    home?.cleanup();
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`serves the API on 127.0.0.1 and closes the engine cleanly on ${signal}`, async () => {
      home = tempHome();
      served = await startServe(home.dir);
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const token = served.browserUrl.split('#token=')[1]!;
      const r = await fetch(`${served.url}/api/commands/sessions.create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'from serve' }),
      });
      expect(r.status).toBe(200);
      const exited = new Promise<number | null>((done) => served!.process.once('exit', (code) => done(code)));
      served.process.kill(signal);
      expect(await exited).toBe(0);
      // A clean close checkpoints the WAL and removes it; a killed process would leave it behind.
      expect(existsSync(path.join(home.dir, 'memory.db-wal'))).toBe(false);
      const list = runCli(['sessions', 'list', '--home', home.dir, '--json']);
      expect(list.json().sessions.map((s: { title: string }) => s.title)).toEqual(['from serve']);
    });
  }

  it('rejects a bad --port with a one-line error', () => {
    home = tempHome();
    const r = runCli(['serve', '--port', 'abc', '--home', home.dir]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('port');
    const high = runCli(['serve', '--port', '70000', '--home', home.dir]);
    expect(high.status).toBe(1);
  });
});
