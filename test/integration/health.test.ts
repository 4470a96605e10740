import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources } from '../helpers/home';
import { startHttpServer } from '../../src/main/api/http';
import { createReadLane } from '../../src/main/workers/read-lane';

const res = testResources();
afterEach(() => res.release());

describe('GET /api/health', () => {
  it('needs the token, answers 200 when healthy and 503 with the reasons when the read lane is broken', async () => {
    const t = res.engine();
    const server = await startHttpServer({ engine: t.engine, port: 0, rendererDir: null });
    try {
      const get = (auth = true, method = 'GET') =>
        fetch(`${server.url}/api/health`, { method, headers: auth ? { Authorization: `Bearer ${server.token}` } : {} });
      expect((await get(false)).status).toBe(401);
      expect((await get(true, 'POST')).status).toBe(405);
      const healthy = await get();
      expect(healthy.status).toBe(200);
      expect(await healthy.json()).toMatchObject({ ok: true, problems: [], readLane: { ok: true } });

      await t.engine.readLane.close();
      t.engine.readLane = createReadLane({
        dbPath: path.join(t.home, 'gone.db'),
        wikiDir: t.engine.paths.wiki,
        size: 1,
      });
      const broken = await get();
      expect(broken.status).toBe(503);
      const report = await broken.json();
      expect(report.ok).toBe(false);
      expect(report.readLane).toMatchObject({ ok: false, roundTripMs: null });
      expect(report.problems[0]).toMatch(/^read lane \(recall and search\) does not answer/);
    } finally {
      await server.close();
      await t.engine.readLane.close();
    }
  });
});
