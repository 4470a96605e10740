import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testResources } from '../helpers/home';
import { runCli } from '../helpers/cli';
import { openEngine } from '../../src/main/engine';
import { startHttpServer } from '../../src/main/api/http';
import { FileLock } from '../../src/main/wiki/file-lock';
import { sessionWith } from '../unit/dream-fixtures';

const res = testResources();
afterEach(() => res.release());

// The usual desktop umask: without explicit modes every new file would be readable by others.
let previousUmask = 0;
beforeAll(() => {
  previousUmask = process.umask(0o022);
});
afterAll(() => void process.umask(previousUmask));

const mode = (p: string) => lstatSync(p).mode & 0o777;

/** Every folder and file under `root` (symlinks excluded) whose mode lets group or others in. */
function openToOthers(root: string): string[] {
  const bad: string[] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      if ((st.mode & 0o777) !== 0o700) bad.push(`${path.relative(root, p) || '.'}/ ${(st.mode & 0o777).toString(8)}`);
      for (const name of readdirSync(p)) walk(path.join(p, name));
    } else if ((st.mode & 0o777) !== 0o600) bad.push(`${path.relative(root, p)} ${(st.mode & 0o777).toString(8)}`);
  };
  walk(root);
  return bad;
}

describe('the data home is private to the user', () => {
  it('creates the home and every file the program writes as 0700 folders and 0600 files', async () => {
    const home = path.join(res.home(), 'new-home');
    const t = res.engine({ home });
    await sessionWith(t, { facts: [{ text: 'We deploy with Helm charts' }] });
    await t.run('wiki.notes.append', { content: 'a note' });
    await t.run('dream.run', { drain: true });
    await t.run('dream.config.set', { enabled: true, schedule: '0 3 * * *' });
    await t.run('wiki.export', {});
    const server = await startHttpServer({ engine: t.engine, port: 0, rendererDir: null });
    await server.close();
    const held = await new FileLock(path.join(t.engine.paths.locks, 'probe')).acquire('test', 1000);
    for (const f of ['memory.db', 'memory.db-wal', 'memory.db-shm', 'settings.yaml', 'http-token']) {
      expect(existsSync(path.join(home, f)), f).toBe(true);
    }
    expect(existsSync(path.join(home, 'wiki-export', 'INDEX.md'))).toBe(true);
    expect(existsSync(path.join(home, 'locks', 'probe.owner.json'))).toBe(true);
    expect(existsSync(path.join(home, 'wiki', 'LOG.md'))).toBe(true);
    expect(openToOthers(home)).toEqual([]);
    expect(mode(path.join(home, 'locks'))).toBe(0o700);
    await held!.release();
  });

  it('the CLI, run as a person runs it, creates a private home too', () => {
    const home = path.join(res.home(), 'cli-home');
    const r = runCli(['sessions', 'add', '--home', home, '--json', '--project', 'p']);
    expect(r.status, r.stderr).toBe(0);
    expect(openToOthers(home)).toEqual([]);
  });

  it('an export into a folder a person chose writes 0600 pages and leaves the folder as it was', async () => {
    const t = res.engine();
    await sessionWith(t, { facts: [{ text: 'We deploy with Helm charts' }] });
    const dir = path.join(res.home(), 'shared');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    await t.run('wiki.export', { dir });
    expect(mode(dir)).toBe(0o755);
    for (const name of readdirSync(dir)) expect(mode(path.join(dir, name)), name).toBe(0o600);
  });

  it('repairs an existing home that others can read, at engine open', async () => {
    const home = res.home();
    const first = openEngine({ home });
    await first.wiki.write('topics/a.md', '# a\n');
    await first.close();
    writeFileSync(path.join(home, 'settings.yaml'), 'dream:\n  enabled: false\n');
    writeFileSync(path.join(home, 'http-token'), 'x'.repeat(43) + '\n');
    const loosen = (p: string) => {
      for (const name of readdirSync(p)) {
        const child = path.join(p, name);
        if (statSync(child).isDirectory()) loosen(child);
        chmodSync(child, statSync(child).isDirectory() ? 0o755 : 0o644);
      }
    };
    loosen(home);
    chmodSync(home, 0o755);
    expect(openToOthers(home).length).toBeGreaterThan(10);
    res.engine({ home });
    expect(openToOthers(home)).toEqual([]);
  });
});

describe('the program never writes through a symlink in the home', () => {
  it('a planted http-token symlink is refused: its target is neither overwritten nor chmodded', async () => {
    const t = res.engine();
    const victim = path.join(res.home(), 'victim.txt');
    for (const content of ['my notes\n', 'y'.repeat(43) + '\n']) {
      writeFileSync(victim, content);
      chmodSync(victim, 0o644);
      rmSync(t.engine.paths.httpToken, { force: true });
      symlinkSync(victim, t.engine.paths.httpToken);
      await expect(startHttpServer({ engine: t.engine, port: 0, rendererDir: null })).rejects.toThrow(
        /http-token.*symbolic link/,
      );
      expect(readFileSync(victim, 'utf8')).toBe(content);
      expect(mode(victim)).toBe(0o644);
    }
  });

  it('dream config refuses a settings.yaml that is a symlink, leaving its target alone', async () => {
    const t = res.engine();
    const target = path.join(res.home(), 'dotfiles-settings.yaml');
    writeFileSync(target, '# mine\n');
    symlinkSync(target, t.engine.paths.settings);
    await expect(t.run('dream.config.set', { enabled: true })).rejects.toThrow(/settings.yaml.*symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('# mine\n');
  });

  it('refuses a memory.db that is a symlink', () => {
    const home = res.home();
    const elsewhere = path.join(res.home(), 'other.db');
    writeFileSync(elsewhere, '');
    symlinkSync(elsewhere, path.join(home, 'memory.db'));
    expect(() => openEngine({ home })).toThrow(/memory.db.*symbolic link/);
  });

  it('a stale lock owner file that is a symlink is replaced, never written through', async () => {
    const t = res.engine();
    const victim = path.join(res.home(), 'victim.json');
    writeFileSync(victim, 'keep');
    symlinkSync(victim, path.join(t.engine.paths.locks, 'wiki-write.owner.json'));
    await t.engine.wiki.write('topics/x.md', '# x\n');
    expect(readFileSync(victim, 'utf8')).toBe('keep');
  });

  it('the export refuses to write through a symlinked page in its folder', async () => {
    const t = res.engine();
    await sessionWith(t, { facts: [{ text: 'We deploy with Helm charts' }] });
    const dir = path.join(res.home(), 'export');
    mkdirSync(dir);
    const victim = path.join(res.home(), 'victim.md');
    writeFileSync(victim, 'keep');
    symlinkSync(victim, path.join(dir, 'INDEX.md'));
    await expect(t.run('wiki.export', { dir })).rejects.toThrow(/symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('keep');
  });
});

describe('a symlink inside the wiki cannot bypass the rules of the file it points at', () => {
  const setup = async () => {
    const t = res.engine();
    const wiki = t.engine.paths.wiki;
    await t.run('wiki.notes.append', { content: 'first entry' });
    const note = readdirSync(path.join(wiki, 'notes'))[0]!;
    await t.engine.wiki.appendLog('dream | seed');
    symlinkSync('../LOG.md', path.join(wiki, 'topics', 'log-alias.md'));
    symlinkSync('../USER.md', path.join(wiki, 'topics', 'user-alias.md'));
    symlinkSync(`../notes/${note}`, path.join(wiki, 'topics', 'note-alias.md'));
    const before = (rel: string) => readFileSync(path.join(wiki, rel), 'utf8');
    return {
      t,
      wiki,
      note,
      snapshot: { log: before('LOG.md'), user: before('USER.md'), note: before(`notes/${note}`) },
    };
  };

  it('writes to a linked page are refused (LOG.md append-only, USER.md, notes read-only)', async () => {
    const { t, wiki, note, snapshot } = await setup();
    for (const alias of ['log-alias', 'user-alias', 'note-alias']) {
      await expect(t.run('wiki.write', { path: `topics/${alias}.md`, content: 'overwritten' })).rejects.toThrow(
        /symbolic link/,
      );
    }
    expect(readFileSync(path.join(wiki, 'LOG.md'), 'utf8')).toBe(snapshot.log);
    expect(readFileSync(path.join(wiki, 'USER.md'), 'utf8')).toBe(snapshot.user);
    expect(readFileSync(path.join(wiki, 'notes', note), 'utf8')).toBe(snapshot.note);
    // Reading through a link inside the wiki still works.
    expect((await t.run('wiki.read', { path: 'topics/user-alias.md' })).content).toBe(snapshot.user);
    // Deleting the link removes the link, never the file it names.
    await t.run('wiki.delete', { path: 'topics/user-alias.md' });
    expect(readFileSync(path.join(wiki, 'USER.md'), 'utf8')).toBe(snapshot.user);
  });

  it('a section folder linked to notes/ cannot be used to write or delete a note', async () => {
    const { t, wiki, note, snapshot } = await setup();
    rmSync(path.join(wiki, 'comparisons'), { recursive: true });
    symlinkSync('notes', path.join(wiki, 'comparisons'));
    await expect(t.run('wiki.write', { path: `comparisons/${note}`, content: 'x' })).rejects.toThrow(/symbolic link/);
    await expect(t.run('wiki.delete', { path: `comparisons/${note}` })).rejects.toThrow(/symbolic link/);
    expect(readFileSync(path.join(wiki, 'notes', note), 'utf8')).toBe(snapshot.note);
  });

  it('appends refuse a LOG.md or a daily note that is a symlink', async () => {
    const { t, wiki, note } = await setup();
    await t.run('wiki.write', { path: 'topics/target.md', content: 'target' });
    rmSync(path.join(wiki, 'LOG.md'));
    symlinkSync('topics/target.md', path.join(wiki, 'LOG.md'));
    await expect(t.engine.wiki.appendLog('dream | forged')).rejects.toThrow(/symbolic link/);
    rmSync(path.join(wiki, 'notes', note));
    symlinkSync('../topics/target.md', path.join(wiki, 'notes', note));
    await expect(t.run('wiki.notes.append', { content: 'x' })).rejects.toThrow(/symbolic link/);
    expect(readFileSync(path.join(wiki, 'topics', 'target.md'), 'utf8')).toBe('target');
  });

  it('Dream never merges into a linked page and still completes', async () => {
    const { t, wiki, snapshot } = await setup();
    symlinkSync('../USER.md', path.join(wiki, 'entities', 'helm.md'));
    await sessionWith(t, { facts: [{ text: 'We deploy with Helm charts' }] });
    const r = await t.run('dream.run', { drain: true });
    expect(r).toMatchObject({ failed: 0, sessionsProcessed: 1 });
    expect(readFileSync(path.join(wiki, 'USER.md'), 'utf8')).toBe(snapshot.user);
  });
});
