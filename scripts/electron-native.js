#!/usr/bin/env node
/**
 * Run by `npm start` / `npm run dev` before Electron starts. The better-sqlite3 in node_modules
 * is compiled for Node's ABI; Electron needs its own build. This makes one, once, in
 * .cache/electron-native/electron-<version>/better-sqlite3 (node_modules stays Node's, so the CLI
 * and the tests keep working), and src/main/index.ts loads it through setDefaultNativeBinding.
 *
 * It never fails the caller for a missing build: where it cannot build (offline, no Electron
 * headers, no compiler) it says why and exits 0, and the app reports the ABI error itself.
 * It exits 1 only when the Electron binary is missing and cannot be fetched, since nothing
 * could start then.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const say = (msg) => console.log(`electron-native: ${msg}`);

function electronVersion() {
  try {
    return require(path.join(root, 'node_modules/electron/package.json')).version;
  } catch {
    return null;
  }
}

/** npm installs Electron with its download script disabled (package.json allowScripts); fetch it on first start. */
function ensureElectronBinary() {
  const dir = path.join(root, 'node_modules/electron');
  if (fs.existsSync(path.join(dir, 'path.txt'))) return true;
  say('the Electron binary is not downloaded yet; fetching it (needs internet, once)...');
  const r = spawnSync(process.execPath, [path.join(dir, 'install.js')], {
    cwd: dir,
    stdio: 'inherit',
    timeout: 600_000,
  });
  if (r.status === 0 && fs.existsSync(path.join(dir, 'path.txt'))) return true;
  say('could not download Electron. Check the connection (or set ELECTRON_MIRROR) and run `npm start` again.');
  say('Without a desktop, `npx evoflux-memory serve` runs the same window in a browser.');
  return false;
}

function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    path.join(path.dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js'),
  ];
  try {
    candidates.push(require.resolve('node-gyp/bin/node-gyp.js'));
  } catch {
    // node-gyp is not installed next to npm here: fall back to the other candidates.
  }
  return candidates.find((c) => c && fs.existsSync(c)) ?? null;
}

function copyPackage(from, to) {
  fs.rmSync(to, { recursive: true, force: true });
  fs.cpSync(from, to, {
    recursive: true,
    // The Node build must not be mistaken for the Electron one.
    filter: (src) =>
      !src.startsWith(path.join(from, 'build')) && !src.includes(`${path.sep}node_modules${path.sep}.bin`),
  });
}

function build(version, target) {
  const env = {
    ...process.env,
    npm_config_runtime: 'electron',
    npm_config_target: version,
    npm_config_disturl: 'https://electronjs.org/headers',
  };
  const prebuild = path.join(root, 'node_modules/prebuild-install/bin.js');
  if (fs.existsSync(prebuild)) {
    say('trying a prebuilt binary...');
    const r = spawnSync(
      process.execPath,
      [prebuild, '--runtime', 'electron', '--target', version, '--arch', process.arch],
      {
        cwd: target,
        env,
        stdio: 'inherit',
        timeout: 120_000,
      },
    );
    if (r.status === 0) return true;
  }
  const gyp = nodeGyp();
  if (!gyp) {
    say('no node-gyp found to compile better-sqlite3.');
    return false;
  }
  say('compiling better-sqlite3 against Electron headers (a few minutes, once)...');
  const r = spawnSync(
    process.execPath,
    [
      gyp,
      'rebuild',
      '--release',
      `--target=${version}`,
      '--runtime=electron',
      '--dist-url=https://electronjs.org/headers',
    ],
    {
      cwd: target,
      env,
      stdio: 'inherit',
      timeout: 900_000,
    },
  );
  return r.status === 0;
}

function main() {
  const version = electronVersion();
  if (!version) {
    say('electron is not installed in node_modules; skipping (run `npm ci` first).');
    return 0;
  }
  if (!ensureElectronBinary()) return 1;
  const target = path.join(root, '.cache/electron-native', `electron-${version}`, 'better-sqlite3');
  const binding = path.join(target, 'build/Release/better_sqlite3.node');
  if (fs.existsSync(binding)) {
    say(`better-sqlite3 for Electron ${version} is ready.`);
    return 0;
  }
  const source = path.join(root, 'node_modules/better-sqlite3');
  if (!fs.existsSync(source)) {
    say('node_modules/better-sqlite3 is missing; run `npm ci` first. Skipping.');
    return 0;
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  copyPackage(source, target);
  if (build(version, target) && fs.existsSync(binding)) {
    say(`built ${path.relative(root, binding)}`);
    return 0;
  }
  fs.rmSync(target, { recursive: true, force: true });
  say(`could not build better-sqlite3 for Electron ${version} (offline, or no C++ toolchain / Electron headers).`);
  say('Skipping: the window will report the database error. `npx evoflux-memory serve` works without it.');
  return 0;
}

process.exitCode = main();
