import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/build';
import { escapeBeyondLatin1 } from '../../scripts/escape-beyond-latin1';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsFiles(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : [],
  );
}

/** Package names the compiled main bundle (desktop main, CLI, serve, mcp, worker) requires at run time. */
function requiredPackages(): Set<string> {
  const found = new Set<string>();
  for (const file of jsFiles(path.join(ROOT, 'out', 'main'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\brequire\("([^"./][^"]*)"\)/g)) {
      const id = m[1]!.replace(/^node:/, '');
      if (builtinModules.includes(id.split('/')[0]!) || builtinModules.includes(id)) continue;
      found.add(id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0]!);
    }
  }
  return found;
}

describe('the compiled main bundle', () => {
  it('requires only the native SQLite binding (and Electron in the desktop shell) from node_modules', () => {
    const required = requiredPackages();
    // ajv's code generator writes require() calls into the strings it compiles; they are not run.
    required.delete('ajv');
    required.delete('ajv-formats');
    expect([...required].sort()).toEqual(['better-sqlite3', 'electron']);
    expect(pkg.dependencies).toHaveProperty('better-sqlite3');
  });

  it('keeps the window-only packages and the TypeScript loader out of the runtime dependencies', () => {
    for (const name of [
      'react',
      'react-dom',
      'markdown-it',
      '@tanstack/react-query',
      '@tanstack/react-virtual',
      'recharts',
      'react-is',
      'tsx',
    ]) {
      expect(pkg.dependencies, name).not.toHaveProperty(name);
      expect(pkg.devDependencies, name).toHaveProperty(name);
    }
  });

  it('is Latin-1 throughout, so V8 keeps each source one byte a character', () => {
    for (const file of jsFiles(path.join(ROOT, 'out', 'main'))) {
      const wide = /[\u0100-\uffff]/.exec(readFileSync(file, 'utf8'));
      expect(wide?.[0], path.relative(ROOT, file)).toBeUndefined();
    }
  });
});

describe('escapeBeyondLatin1', () => {
  // What a snippet evaluates to, as written and as the build writes it.
  const both = (source: string) => [source, escapeBeyondLatin1(source)].map((s) => new Function(`return ${s}`)());

  it('writes characters beyond Latin-1 as escapes that mean the same in strings, templates and regular expressions', () => {
    for (const source of [
      `"em — dash, ellipsis … and caf\u00e9 é"`,
      '`a ${1 + 1} — b`',
      `/^[-–—]$/.test('–')`,
      `/[“”]/u.test('”')`,
      `"emoji 😀 stays one code point".length`,
      // An identity escape, and an escaped backslash before the character.
      String.raw`"\\—" + "\—"`,
      `(/* a comment — */ "x")`,
    ]) {
      const [asWritten, asBuilt] = both(source);
      expect(asBuilt, source).toEqual(asWritten);
      expect(/[\u0100-\uffff]/.test(escapeBeyondLatin1(source)), source).toBe(false);
    }
  });
});
