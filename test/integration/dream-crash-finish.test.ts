import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources } from '../helpers/home';
import { child } from './dream-child-process';
import { sessionWith } from '../unit/dream-fixtures';
import { sessionSourceSlug } from '../../src/main/dream/source-page';

const res = testResources();
afterEach(() => res.release());

const dreamEntries = (log: string) => log.match(/^## \[.*\] dream \|.*$/gm) ?? [];

describe('Dream heals a run killed after its watermark commit', () => {
  for (const when of ['after-commit', 'before-log', 'after-log'] as const) {
    it(`SIGKILL ${when}: the next run rebuilds INDEX.md and leaves exactly one LOG.md entry`, async () => {
      const t = res.engine();
      const { session } = await sessionWith(t, { facts: [{ text: 'We deploy with Helm charts' }] });
      const wiki = t.engine.paths.wiki;
      const slug = sessionSourceSlug(session.id);

      const victim = child(['dream-kill', t.home, when]);
      const code = await victim.exited;
      expect(victim.errors()).toBe('');
      expect(code).toBeNull(); // killed by the signal, never exited on its own
      expect(victim.output()).not.toContain('SURVIVED');
      // The batch's watermark is in: the session is no longer pending, so nothing would redo it.
      expect(t.engine.db.prepare('SELECT count(*) AS n FROM dream_log').get()).toEqual({ n: 1 });
      const index = () => readFileSync(path.join(wiki, 'INDEX.md'), 'utf8');
      const log = () => (existsSync(path.join(wiki, 'LOG.md')) ? readFileSync(path.join(wiki, 'LOG.md'), 'utf8') : '');
      if (when === 'after-commit') expect(index()).not.toContain(`[[${slug}]]`);
      expect(dreamEntries(log())).toHaveLength(when === 'after-log' ? 1 : 0);

      const healed = await t.run('dream.run', { drain: true });
      expect(healed).toMatchObject({ status: 'completed', failed: 0, remaining: 0 });
      expect(index()).toContain(`[[${slug}]]`);
      const entries = dreamEntries(log());
      expect(entries).toHaveLength(1);
      expect(entries[0]).toContain('sessions=1');
      expect(readFileSync(path.join(wiki, 'LINT.md'), 'utf8')).toContain('# Wiki Lint Report');

      // Healed once: later runs are idle and add nothing.
      await t.run('dream.run', { drain: true });
      expect(dreamEntries(log())).toHaveLength(1);
      expect(t.engine.db.prepare('SELECT count(*) AS n FROM dream_unfinished_runs').get()).toEqual({ n: 0 });
    });
  }
});
