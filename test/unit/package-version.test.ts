import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageVersion } from '../../src/main/version';
import { tempHome } from '../helpers/home';

describe('packageVersion', () => {
  const dirs: { cleanup(): void }[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()));

  it("walks up to this program's package.json, skipping other packages on the way", () => {
    const root = tempHome('evoflux-version-');
    dirs.push(root);
    const deep = path.join(root.dir, 'app', 'out', 'cli');
    mkdirSync(deep, { recursive: true });
    writeFileSync(path.join(root.dir, 'package.json'), JSON.stringify({ name: 'evoflux-memory', version: '7.8.9' }));
    writeFileSync(path.join(root.dir, 'app', 'package.json'), JSON.stringify({ name: 'other', version: '1.0.0' }));
    writeFileSync(path.join(root.dir, 'app', 'out', 'package.json'), '{ not json');
    expect(packageVersion(deep)).toBe('7.8.9');
  });

  it("reads the checkout's own version from the source folder", () => {
    const pkg = require('../../package.json') as { version: string };
    expect(packageVersion(path.resolve(__dirname, '../../src/main'))).toBe(pkg.version);
    expect(packageVersion()).toBe(pkg.version);
  });

  it('says "unknown" where no package.json names the program', () => {
    const root = tempHome('evoflux-version-');
    dirs.push(root);
    expect(packageVersion(root.dir)).toBe('unknown');
  });
});
