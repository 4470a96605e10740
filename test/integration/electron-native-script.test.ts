import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/home';

/**
 * scripts/electron-native.js in a scratch checkout: it must never fail the caller for a build
 * it cannot make, must say why, and must stop only when there is no Electron to start at all.
 */
const SCRIPT = path.resolve(__dirname, '../../scripts/electron-native.js');

function checkout(opts: { electronBinary: boolean; installSucceeds?: boolean; sqlite?: boolean; built?: boolean }) {
  const dir = tempHome('evoflux-native-');
  const root = dir.dir;
  mkdirSync(path.join(root, 'scripts'));
  copyFileSync(SCRIPT, path.join(root, 'scripts/electron-native.js'));
  const electron = path.join(root, 'node_modules/electron');
  mkdirSync(electron, { recursive: true });
  writeFileSync(path.join(electron, 'package.json'), JSON.stringify({ name: 'electron', version: '99.1.0' }));
  // A stand-in for Electron's downloader: offline it fails, online it writes path.txt.
  writeFileSync(
    path.join(electron, 'install.js'),
    opts.installSucceeds ? `require('fs').writeFileSync(__dirname + '/path.txt', 'electron')` : 'process.exit(1)',
  );
  if (opts.electronBinary) writeFileSync(path.join(electron, 'path.txt'), 'electron');
  if (opts.sqlite) {
    const pkg = path.join(root, 'node_modules/better-sqlite3');
    mkdirSync(path.join(pkg, 'build/Release'), { recursive: true });
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'better-sqlite3', version: '12.0.0' }));
    writeFileSync(path.join(pkg, 'build/Release/better_sqlite3.node'), 'node abi build');
  }
  const target = path.join(root, '.cache/electron-native/electron-99.1.0/better-sqlite3');
  if (opts.built) {
    mkdirSync(path.join(target, 'build/Release'), { recursive: true });
    writeFileSync(path.join(target, 'build/Release/better_sqlite3.node'), 'electron abi build');
  }
  const run = () =>
    spawnSync(process.execPath, [path.join(root, 'scripts/electron-native.js')], {
      encoding: 'utf8',
      // No network and no compiler to find: every build attempt must fail fast and be skipped.
      env: { ...process.env, npm_config_node_gyp: path.join(root, 'missing-node-gyp.js'), PATH: '/nonexistent' },
      timeout: 60_000,
    });
  return { dir, root, target, run };
}

describe('scripts/electron-native.js', () => {
  let cleanup: (() => void) | null = null;
  afterEach(() => cleanup?.());

  it('stops with a clear message when Electron itself cannot be fetched', () => {
    const c = checkout({ electronBinary: false });
    cleanup = c.dir.cleanup;
    const r = c.run();
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('could not download Electron');
    expect(r.stdout).toContain('serve');
  });

  it('fetches a missing Electron binary first', () => {
    const c = checkout({ electronBinary: false, installSucceeds: true, built: true });
    cleanup = c.dir.cleanup;
    const r = c.run();
    expect(r.status).toBe(0);
    expect(existsSync(path.join(c.root, 'node_modules/electron/path.txt'))).toBe(true);
    expect(r.stdout).toContain('is ready');
  });

  it('skips gracefully (exit 0) when better-sqlite3 cannot be built, leaving no half-built copy', () => {
    const c = checkout({ electronBinary: true, sqlite: true });
    cleanup = c.dir.cleanup;
    const r = c.run();
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/could not build better-sqlite3 for Electron 99\.1\.0/);
    expect(existsSync(c.target)).toBe(false);
    // node_modules keeps Node's build untouched.
    expect(existsSync(path.join(c.root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true);
  });

  it('does nothing when the Electron build is already there', () => {
    const c = checkout({ electronBinary: true, sqlite: true, built: true });
    cleanup = c.dir.cleanup;
    const r = c.run();
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('better-sqlite3 for Electron 99.1.0 is ready');
  });

  it('skips when nothing is installed yet', () => {
    const c = checkout({ electronBinary: true });
    cleanup = c.dir.cleanup;
    const r = c.run();
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('node_modules/better-sqlite3 is missing');
  });
});
