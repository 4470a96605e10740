import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PAGE_RECHECK_MS, wikiHits } from '../../src/main/memory/wiki-search';
import { queryTerms } from '../../src/main/text/tokenize';
import { tempHome } from '../helpers/home';

const homes: { cleanup(): void }[] = [];
afterEach(() => homes.splice(0).forEach((h) => h.cleanup()));

const USER = [{ scope: 'user' as const, key: '' }];

function wiki() {
  const home = tempHome('evoflux-wiki-search-');
  homes.push(home);
  const dir = path.join(home.dir, 'wiki');
  mkdirSync(path.join(dir, 'topics'), { recursive: true });
  const page = (name: string, body: string) => `---\ndescription: ${name}\nscopes: [user]\n---\n# ${name}\n\n${body}\n`;
  return { dir, page };
}

const snippets = (dir: string, query: string, now: number) =>
  wikiHits(dir, queryTerms(query), USER, now).map((h) => h.build().snippet);

describe('wiki search reads only what changed', () => {
  it('sees a page replaced by rename at once, and one rewritten in place within PAGE_RECHECK_MS', () => {
    const { dir, page } = wiki();
    const file = path.join(dir, 'topics', 'kafka.md');
    writeFileSync(file, page('kafka', 'The brokers run on three hosts.'));
    const t0 = 1_000_000;
    expect(snippets(dir, 'kafka brokers hosts', t0)).toEqual([expect.stringContaining('three hosts')]);

    // Rewritten in place: same inode, its folder untouched. Not looked at again until the time is up.
    writeFileSync(file, page('kafka', 'The brokers moved to five hosts, and zookeeper went away.'));
    expect(snippets(dir, 'kafka brokers hosts', t0 + 10)).toEqual([expect.stringContaining('three hosts')]);
    expect(snippets(dir, 'kafka brokers hosts', t0 + PAGE_RECHECK_MS)).toEqual([expect.stringContaining('five hosts')]);

    // Replaced atomically (as the program and most editors write): the folder moves, seen at once.
    const temp = path.join(dir, 'topics', '.kafka.md.tmp');
    writeFileSync(temp, page('kafka', 'The brokers are gone; the hosts run pulsar now.'));
    renameSync(temp, file);
    expect(snippets(dir, 'kafka brokers hosts', t0 + PAGE_RECHECK_MS + 1)).toEqual([expect.stringContaining('pulsar')]);

    // A new page is listed at once, a removed one is gone at once.
    writeFileSync(path.join(dir, 'topics', 'hosts.md'), page('hosts', 'Kafka brokers need hosts.'));
    expect(snippets(dir, 'kafka brokers hosts', t0 + PAGE_RECHECK_MS + 2)).toHaveLength(2);
    renameSync(file, path.join(home(dir), 'kafka.md.bak'));
    expect(snippets(dir, 'kafka brokers hosts', t0 + PAGE_RECHECK_MS + 3)).toEqual([
      expect.stringContaining('need hosts'),
    ]);
  });
});

const home = (wikiDir: string) => path.dirname(wikiDir);
