import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { child } from './dream-child-process';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine();
});
afterEach(() => t.close());

describe('wiki appends across processes', () => {
  it(
    'four CLI-like processes and the app appending at once lose and interleave nothing',
    { timeout: 120_000 },
    async () => {
      const at = Date.UTC(2026, 3, 29, 12, 0);
      const perWriter = 20;
      const children = ['a', 'b', 'c', 'd'].map((id) => child(['append', t.home, id, String(perWriter), String(at)]));
      for (let i = 0; i < perWriter; i++) {
        await t.engine.wiki.appendNote(`app-${i}`, at);
        await t.engine.wiki.appendLog(`entry app-${i}\n- detail app-${i}`, at);
      }
      const codes = await Promise.all(children.map((c) => c.exited));
      expect(codes, children.map((c) => c.errors()).join('\n')).toEqual([0, 0, 0, 0]);

      const note = readFileSync(path.join(t.engine.paths.wiki, 'notes', '2026-04-29.md'), 'utf8');
      const entries = note.split('\n\n## ');
      expect(entries).toHaveLength(5 * perWriter);
      for (const id of ['app', 'a', 'b', 'c', 'd']) {
        for (let i = 0; i < perWriter; i++) expect(note).toContain(`12:00 UTC\n\n${id}-${i}\n`);
      }
      const log = readFileSync(path.join(t.engine.paths.wiki, 'LOG.md'), 'utf8');
      expect(log.match(/^# Wiki Log$/gm)).toHaveLength(1);
      const headers = log.match(/^## \[2026-04-29 12:00 UTC\] entry (\w+)-(\d+)$/gm)!;
      expect(headers).toHaveLength(5 * perWriter);
      for (const h of headers) {
        const tag = h.slice(h.lastIndexOf(' ') + 1);
        expect(log).toContain(`${h}\n\n- detail ${tag}\n\n`);
      }
    },
  );
});
