import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateWikiPath } from '../../src/main/wiki/paths';
import { WikiService } from '../../src/main/wiki/service';
import { seedWiki } from '../../src/main/wiki/seed';
import { ManualClock } from '../../src/shared/clock';
import { CommandError } from '../../src/shared/errors';

const rejects = (p: unknown, fragment: string) => {
  let error: unknown;
  try {
    validateWikiPath(p);
  } catch (e) {
    error = e;
  }
  expect(error, `expected ${JSON.stringify(p)} to be rejected`).toBeInstanceOf(CommandError);
  expect((error as CommandError).code).toBe('invalid_input');
  expect((error as CommandError).field).toBe('path');
  expect((error as CommandError).message).toContain(fragment);
};

describe('wiki path validation', () => {
  it('accepts root files and section pages', () => {
    expect(validateWikiPath('USER.md')).toEqual({ rel: 'USER.md', section: null, stem: 'USER' });
    expect(validateWikiPath('topics/sqlite-wal.md')).toEqual({
      rel: 'topics/sqlite-wal.md',
      section: 'topics',
      stem: 'sqlite-wal',
    });
    expect(validateWikiPath('notes/2026-04-29.md').section).toBe('notes');
    expect(validateWikiPath('entities/Node_20.v2.md').stem).toBe('Node_20.v2');
  });

  it.each([
    ['', 'must not be empty'],
    ['   ', 'must not be empty'],
    ['../USER.md', '".." segments'],
    ['topics/../USER.md', '".." segments'],
    ['topics/../../etc/passwd.md', '".." segments'],
    ['./USER.md', '".." segments'],
    ['topics/./a.md', '".." segments'],
    ['/etc/passwd.md', 'not absolute'],
    ['/topics/a.md', 'not absolute'],
    ['~/notes/a.md', 'home-relative'],
    ['C:/wiki/topics/a.md', 'not absolute'],
    ['c:topics/a.md', 'not absolute'],
    ['topics\\a.md', 'backslashes'],
    ['..\\..\\USER.md', 'backslashes'],
    ['topics\\..\\USER.md', 'backslashes'],
    ['topics/a\0.md', 'NUL'],
    ['topics/a.md\0.txt', 'NUL'],
    ['topics/%2e%2e/USER.md', 'percent-encoded'],
    ['%2e%2e%2fUSER.md', 'percent-encoded'],
    ['topics%2fa.md', 'percent-encoded'],
    ['topics/a%00.md', 'percent-encoded'],
    ['topics/\u2024\u2024/a.md', 'plain ASCII'],
    ['topics/\uff0e\uff0e/a.md', 'plain ASCII'],
    ['topics/caf\u00e9.md', 'plain ASCII'],
    ['topics/a\u202e.md', 'plain ASCII'],
    ['topics/a\nb.md', 'control characters'],
    ['topics/a\tb.md', 'control characters'],
    ['topics/a.txt', 'ending in ".md"'],
    ['topics/a.MD', 'ending in ".md"'],
    ['topics/a.md.bak', 'ending in ".md"'],
    ['topics/a', 'ending in ".md"'],
    ['topics/.md', 'ending in ".md"'],
    ['topics//a.md', 'empty segments'],
    ['topics/.hidden.md', 'must start with a letter or digit'],
    ['topics/a b.md', 'must start with a letter or digit'],
    ['topics/a:b.md', 'must start with a letter or digit'],
    ['topics/sub/a.md', 'nested folders'],
    ['random.md', 'must be one of USER.md'],
    ['secrets/a.md', 'must be one of topics'],
    ['wiki/a.md', 'must be one of topics'],
    ['x'.repeat(300) + '.md', 'at most 200'],
    ['topics/CON.md', 'reserved device name'],
    ['topics/nul.md', 'reserved device name'],
    ['entities/com1.md', 'reserved device name'],
  ])('rejects %j (%s)', (p, fragment) => rejects(p, fragment));

  it('rejects non-strings', () => {
    rejects(42, 'must be a string');
    rejects(null, 'must be a string');
  });
});

describe('wiki service file operations', () => {
  let root: string;
  let outside: string;
  let wiki: WikiService;
  beforeEach(() => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'evoflux-wiki-'));
    root = path.join(base, 'wiki');
    outside = path.join(base, 'outside');
    mkdirSync(outside);
    mkdirSync(path.join(base, 'locks'));
    seedWiki(root);
    wiki = new WikiService(root, path.join(base, 'locks'), new ManualClock());
  });
  afterEach(() => rmSync(path.dirname(root), { recursive: true, force: true }));

  it('refuses a page that is a symlink out of the wiki, for read and write', async () => {
    writeFileSync(path.join(outside, 'secret.md'), 'secret');
    symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'topics', 'leak.md'));
    expect(() => wiki.read('topics/leak.md')).toThrow(/outside the wiki/);
    await expect(wiki.write('topics/leak.md', 'x')).rejects.toThrow(/outside the wiki/);
    expect(readFileSync(path.join(outside, 'secret.md'), 'utf8')).toBe('secret');
  });

  it('refuses a dangling symlink that points out of the wiki', async () => {
    symlinkSync(path.join(outside, 'new.md'), path.join(root, 'topics', 'dangling.md'));
    await expect(wiki.write('topics/dangling.md', 'x')).rejects.toThrow(/outside the wiki/);
    expect(existsSync(path.join(outside, 'new.md'))).toBe(false);
  });

  it('refuses a section folder that is a symlink out of the wiki', async () => {
    rmSync(path.join(root, 'entities'), { recursive: true });
    symlinkSync(outside, path.join(root, 'entities'));
    await expect(wiki.write('entities/x.md', 'x')).rejects.toThrow(/outside the wiki/);
    expect(existsSync(path.join(outside, 'x.md'))).toBe(false);
    expect(wiki.listSection('entities')).toEqual([]);
  });

  it('allows a symlink that stays inside the wiki', async () => {
    await wiki.write('topics/real.md', 'real');
    symlinkSync(path.join(root, 'topics', 'real.md'), path.join(root, 'topics', 'alias.md'));
    expect(wiki.read('topics/alias.md').content).toBe('real');
  });

  it('writes atomically, refuses notes/ and LOG.md, protects USER.md, INDEX.md, LOG.md from delete', async () => {
    expect(await wiki.write('topics/a.md', 'one')).toMatchObject({ path: 'topics/a.md', created: true });
    expect(await wiki.write('topics/a.md', 'two')).toMatchObject({ path: 'topics/a.md', created: false });
    expect(wiki.read('topics/a.md').content).toBe('two');
    await expect(wiki.write('notes/2026-01-01.md', 'x')).rejects.toThrow(/read-only/);
    await expect(wiki.write('LOG.md', 'x')).rejects.toThrow(/append-only/);
    for (const p of ['USER.md', 'INDEX.md', 'LOG.md']) {
      await expect(wiki.delete(p)).rejects.toThrow(/Refusing to delete protected wiki file/);
    }
    await expect(wiki.delete('topics/missing.md')).rejects.toMatchObject({ code: 'not_found' });
    await wiki.delete('topics/a.md');
    expect(wiki.exists('topics/a.md')).toBe(false);
    expect(() => wiki.read('topics/a.md')).toThrow(/not found/);
  });

  it('appends notes and LOG.md entries in the documented formats', async () => {
    const at = Date.UTC(2026, 3, 29, 9, 5);
    await wiki.appendNote('  first thing  ', at);
    await wiki.appendNote('second\nthing', at + 60_000);
    expect(readFileSync(path.join(root, 'notes', '2026-04-29.md'), 'utf8')).toBe(
      '## 09:05 UTC\n\nfirst thing\n\n## 09:06 UTC\n\nsecond\nthing\n',
    );
    await wiki.appendLog('dream | sessions=1\n- detail', at);
    await wiki.appendLog('lint | ok', at);
    const log = readFileSync(path.join(root, 'LOG.md'), 'utf8');
    expect(log.startsWith('# Wiki Log\n')).toBe(true);
    expect(log.match(/^## \[/gm)).toHaveLength(2);
    expect(log).toContain(
      '## [2026-04-29 09:05 UTC] dream | sessions=1\n\n- detail\n\n## [2026-04-29 09:05 UTC] lint | ok\n',
    );
  });

  it('seeding never overwrites and is idempotent', () => {
    writeFileSync(path.join(root, 'USER.md'), 'identity: {name: Ada}\n');
    expect(seedWiki(root)).toEqual([]);
    expect(readFileSync(path.join(root, 'USER.md'), 'utf8')).toBe('identity: {name: Ada}\n');
    const fresh = path.join(path.dirname(root), 'fresh');
    expect(seedWiki(fresh).sort()).toEqual(['INDEX.md', 'USER.md']);
    expect(readFileSync(path.join(fresh, 'USER.md'), 'utf8')).toContain('preferences: []');
    for (const s of ['topics', 'entities', 'sources', 'comparisons', 'imports', 'notes']) {
      expect(existsSync(path.join(fresh, s))).toBe(true);
    }
  });
});
