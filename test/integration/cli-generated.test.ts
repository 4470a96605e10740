import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/main/cli';
import { fieldSpecs } from '../../src/main/cli/fields';
import { commandPath } from '../../src/main/cli/aliases';
import { commandNames, contract, type CommandName } from '../../src/shared/contract';
import { BIN } from '../helpers/cli';
import { tempHome } from '../helpers/home';

const PKG = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { version: string };

/** The real CLI in a child process, with exactly the environment given (nothing inherited but PATH). */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The CLI in this process, as the tests of many commands need no new process each. */
async function inProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t), env: {} });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

const pathOf = commandPath;

describe('the CLI generated from the contract', () => {
  const home = tempHome('evoflux-cli-gen-');
  // A HOME of its own: the platform default data home would be created under it, and must never be.
  const userHome = tempHome('evoflux-cli-user-');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: userHome.dir };
  const defaultHome = path.join(userHome.dir, '.config', 'EvoFlux Memory');
  afterAll(() => {
    home.cleanup();
    userHome.cleanup();
  });

  it("lists every contract command in its group's help, with every one of its flags", async () => {
    const groups = [...new Set(commandNames.map((n) => pathOf(n)[0]!))];
    const helps = new Map<string, string>();
    for (const group of groups) {
      const r = await cli([group, '--help'], env);
      expect(r.code, r.stderr).toBe(0);
      helps.set(group, r.stdout);
    }
    for (const name of commandNames) {
      const words = pathOf(name);
      const help = helps.get(words[0]!)!;
      // Nested names (wiki.notes.append) appear under their own sub-group.
      expect(help, name).toMatch(new RegExp(`\\n  ${words[1]}[| ]`));
      if (words.length > 2) continue;
      for (const spec of fieldSpecs(name)) expect(help, `${name} --${spec.flag}`).toContain(`--${spec.flag}`);
    }
    expect(helps.get('sessions')).toMatch(/create\|add \[options\]/);
    expect(helps.get('sessions')).toMatch(/--parent-session-id <id>\s+The lead session[^]*Also --parent\./);
    expect(existsSync(defaultHome)).toBe(false);
  });

  it('runs every contract command: each reaches its handler with the flags generated for it', async () => {
    const session = JSON.parse(
      (await inProcess(['sessions', 'create', '--project-id', 'gen', '--home', home.dir, '--json'])).stdout,
    );
    const fact = JSON.parse(
      (
        await inProcess([
          'facts',
          'add',
          '--session',
          session.id,
          '--scope',
          'project',
          'We deploy with Compose',
          '--home',
          home.dir,
          '--json',
        ])
      ).stdout,
    );
    const valueFor = (name: CommandName, field: string, choices?: string[]) =>
      field === 'sessionId'
        ? session.id
        : field === 'factId'
          ? fact.fact.id
          : field === 'path'
            ? 'topics/cli-gen.md'
            : field === 'scope'
              ? 'project'
              : (choices?.[0] ?? 'cli gen');
    const outcomes: Record<string, string> = {};
    for (const name of commandNames) {
      const args = [...pathOf(name), '--home', home.dir, '--json'];
      // A fact filed by hand needs the key of its project, which no generic value can guess.
      if (name === 'facts.create') args.push('--scope-key', 'gen');
      // The free text goes last, after `--`, so no flag after it is taken as words.
      const words: string[] = [];
      for (const spec of fieldSpecs(name)) {
        if (spec.field === 'dryRun') args.push('--dry-run');
        if (!spec.required) continue;
        if (spec.positional) words.push('--', 'where', 'do', 'we', 'deploy');
        else if (spec.kind === 'json')
          args.push(`--${spec.flag}`, spec.field === 'facts' ? '[{"text":"cli gen"}]' : '{}');
        else args.push(`--${spec.flag}`, valueFor(name, spec.field, spec.choices));
      }

      const r = await inProcess([...args, ...words]);
      outcomes[name] = r.code === 0 ? 'ok' : JSON.parse(r.stderr).error.code;
    }
    // Reaching the handler: success, or an error about the data (a page that does not exist yet),
    // never a usage error or input the contract refused.
    for (const [name, outcome] of Object.entries(outcomes)) {
      expect(['ok', 'not_found', 'conflict'], `${name}: ${outcome}`).toContain(outcome);
    }
    expect(Object.keys(outcomes)).toEqual(Object.keys(contract));
  });

  it('prints the package version with --version and -V', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await cli([flag], env);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(PKG.version);
    }
  });

  it('suggests the nearest command for an unknown one, exit 2', async () => {
    const group = await cli(['sesions', 'list', '--home', home.dir], env);
    expect(group.code).toBe(2);
    expect(group.stderr).toMatch(/Unknown command 'sesions' \(Did you mean sessions\?\)/);
    const command = await cli(['sessions', 'lst', '--home', home.dir], env);
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/Unknown command 'lst' \(Did you mean list\?\)/);
    const bare = await cli(['sessions', '--home', home.dir], env);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('Usage: evoflux-memory sessions');
    expect(existsSync(defaultHome)).toBe(false);
  });

  it('names the flag the user typed (or would type) in errors, not the contract field', async () => {
    const short = await cli(['sessions', 'create', '--kind', 'side-chat', '--parent', 'nope', '--home', home.dir], env);
    expect(short.code).toBe(1);
    expect(short.stderr.trim()).toBe('evoflux-memory: --parent: session not found: nope');
    const long = await cli(
      ['sessions', 'create', '--kind', 'side-chat', '--parent-session-id', 'nope', '--home', home.dir, '--json'],
      env,
    );
    expect(JSON.parse(long.stderr).error).toEqual({
      code: 'not_found',
      message: 'session not found: nope',
      field: 'parentSessionId',
      flag: '--parent-session-id',
    });
    const missing = await cli(['sessions', 'create', '--kind', 'team-member', '--home', home.dir], env);
    expect(missing.stderr.trim()).toBe(
      'evoflux-memory: --parent-session-id: a team-member session needs its parent session',
    );
    const nested = await cli(
      ['turns', 'complete', '--session', 'x', '--tool-rounds', '[{"content":5}]', 'done', '--home', home.dir],
      env,
    );
    expect(nested.stderr).toMatch(/^evoflux-memory: --tool-rounds \(0\.content\): /);
    const badJson = await cli(
      ['turns', 'complete', '--session', 'x', '--checkpoint', '{oops', 'done', '--home', home.dir],
      env,
    );
    expect(badJson.stderr).toMatch(/^evoflux-memory: --checkpoint: is not valid JSON/);
    const words = await cli(['memory', 'recall', '--session', 'x', '--home', home.dir], env);
    expect(words.stderr.trim()).toBe('evoflux-memory: --text: is required (or give it as the words after the options)');
    const both = await cli(['wiki', 'notes', 'append', '--content', 'a', 'b', '--home', home.dir], env);
    expect(both.stderr.trim()).toBe(
      'evoflux-memory: --content: is given twice (as the words after the options and as --content); give one',
    );
  });

  it('takes --home and --json anywhere on the line', async () => {
    const created = JSON.parse(
      (await cli(['--json', '--home', home.dir, 'sessions', 'create', '--title', 'anywhere'], env)).stdout,
    );
    const lines = [
      ['--home', home.dir, 'sessions', 'list', '--json'],
      ['sessions', '--home', home.dir, 'list', '--json'],
      ['sessions', 'list', '--json', '--home', home.dir],
      ['--json', 'sessions', 'list', `--home=${home.dir}`],
      ['sessions', 'list', '--home', home.dir, '--', '--json'],
    ];
    for (const line of lines) {
      const r = await cli(line, env);
      expect(r.code, `${line.join(' ')}: ${r.stderr}`).toBe(0);
      expect(
        JSON.parse(r.stdout).sessions.map((s: { id: string }) => s.id),
        line.join(' '),
      ).toContain(created.id);
    }
    expect(existsSync(defaultHome)).toBe(false);
  });

  it('never lets "--" or dash-leading text swallow --home, and never opens the default home by accident', async () => {
    const s = JSON.parse((await cli(['sessions', 'create', '--home', home.dir, '--json'], env)).stdout);
    const add = (...args: string[]) => cli(['messages', 'add', '--session', s.id, '--role', 'user', ...args], env);
    const stored: string[] = [];
    for (const [args, content] of [
      [['--', '-rf', '--home', home.dir], '-rf'],
      [['--home', home.dir, '--', '-rf', '--', 'x'], '-rf -- x'],
      [['--content', '--json', '--home', home.dir], '--json'],
      [['--content=--home', '--home', home.dir], '--home'],
      [['--home', home.dir, '--content', '-rf'], '-rf'],
    ] as [string[], string][]) {
      const r = await add(...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      stored.push(content);
    }
    for (const args of [
      ['-rf', '--home', home.dir], // an unknown option, not text
      ['--', '--json', '--home', home.dir], // --json is the global option: no text is left
      ['text', '--home'], // --home without its folder
      ['text', '--home', ''], // an empty --home (an unset variable in a script)
      ['text', '--home', '--json'],
      ['--', 'text', '--home'],
    ]) {
      const r = await add(...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    const transcript = JSON.parse(
      (await cli(['messages', 'list', '--session-id', s.id, '--home', home.dir, '--json'], env)).stdout,
    );
    expect(transcript.messages.map((m: { content: string }) => m.content)).toEqual(stored);
    expect(existsSync(defaultHome)).toBe(false);
    expect(existsSync(path.join(userHome.dir, '.config'))).toBe(false);
  });

  it('keeps the older command names and flags as aliases of the generated ones', async () => {
    const h = ['--home', home.dir];
    const run = async (...args: string[]) => {
      const r = await cli([...args, ...h], env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout.trimEnd();
    };
    const s = JSON.parse(
      await run('sessions', 'add', '--project', 'aliases', '--folder', 'f1', '--agent', 'a1', '--json'),
    );
    expect(s).toMatchObject({ projectId: 'aliases', folderId: 'f1', agentName: 'a1' });
    const f = JSON.parse(
      await run('facts', 'add', '--session', s.id, '--scope', 'project', 'Aliases keep scripts working', '--json'),
    );
    expect(await run('facts', 'show', '--fact', f.fact.id)).toBe(await run('facts', 'get', '--fact-id', f.fact.id));
    expect(await run('scopes', 'show', '--session', s.id)).toBe(await run('scopes', 'resolve', '--session-id', s.id));
    expect(await run('extract', 'status', '--session', s.id, '--json')).toBe(
      await run('extraction', 'status', '--session-id', s.id, '--json'),
    );
    expect(
      JSON.parse(
        await run('search', '--session', s.id, '--sources', 'facts', '--sources', 'wiki', 'aliases', '--json'),
      ),
    ).toEqual(
      JSON.parse(
        await run('memory', 'search', '--session-id', s.id, '--sources', 'facts,wiki', '--query', 'aliases', '--json'),
      ),
    );

    // Long text and JSON from files: the file twin of a field, and its older short name.
    const page = path.join(home.dir, 'page.md');
    writeFileSync(page, '---\ndescription: from a file\n---\n# Aliases\n');
    expect(await run('wiki', 'write', '--path', 'topics/aliases.md', '--file', page)).toBe('created topics/aliases.md');
    expect(await run('wiki', 'write', '--path', 'topics/aliases.md', '--content-file', page)).toBe(
      'replaced topics/aliases.md',
    );
    const checkpoint = path.join(home.dir, 'checkpoint.json');
    writeFileSync(checkpoint, JSON.stringify({ step: 3, plan: ['test'] }));
    await run('turns', 'complete', '--session', s.id, '--checkpoint-file', checkpoint, 'All done.');
    expect(JSON.parse(await run('turns', 'checkpoint', '--session', s.id, '--json')).checkpoint).toEqual({
      step: 3,
      plan: ['test'],
    });

    // A time is epoch milliseconds when it is all digits, else ISO-8601.
    const old = JSON.parse(await run('sessions', 'create', '--created-at', '1767225600000', '--json'));
    expect(old.createdAt).toBe(1767225600000);
    const iso = JSON.parse(await run('sessions', 'create', '--created-at', '2026-01-01T00:00:00Z', '--json'));
    expect(iso.createdAt).toBe(Date.parse('2026-01-01T00:00:00Z'));
    const notATime = await cli(['sessions', 'create', '--created-at', 'yesterday', ...h], env);
    expect(notATime.stderr).toMatch(/^evoflux-memory: --created-at: /);

    // `dream run` drains unless --once (or --no-drain): a person running it wants everything done.
    writeFileSync(path.join(home.dir, 'settings.yaml'), 'dream:\n  maxSourcesPerRun: 1\n');
    for (const title of ['one', 'two', 'three']) {
      const t = JSON.parse(await run('sessions', 'create', '--title', title, '--json'));
      await run('facts', 'add', '--session', t.id, `Fact of session ${title}`);
    }
    const pending = JSON.parse(await run('dream', 'status', '--json')).pendingSessions;
    expect(pending).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(await run('dream', 'run', '--once', '--json'))).toMatchObject({ sessionsProcessed: 1 });
    expect(JSON.parse(await run('dream', 'run', '--no-drain', '--json'))).toMatchObject({ sessionsProcessed: 1 });
    expect(JSON.parse(await run('dream', 'run', '--json'))).toMatchObject({
      sessionsProcessed: pending - 2,
      remaining: 0,
    });
  });
});
