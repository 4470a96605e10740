#!/usr/bin/env node
'use strict';
// Runs the compiled CLI (out/main/cli.js, built by `npm run build`; `npm ci` builds it too).
// Everything is located from this file, never from the working directory, so an agent client
// may start it from any folder.
const { existsSync } = require('node:fs');
const path = require('node:path');

const entry = path.join(__dirname, '..', 'out', 'main', 'cli.js');
if (!existsSync(entry)) {
  process.stderr.write(
    `evoflux-memory: the compiled CLI is missing (${entry}).\n` +
      `Run \`npm run build\` in ${path.dirname(__dirname)} (\`npm ci\` and \`npm install\` build it too).\n`,
  );
  process.exitCode = 1;
} else {
  // A reader that stops early (`| head`) closes the pipe: the rest of the output is dropped, and
  // the command still finishes (and closes the database) normally instead of crashing.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e) => {
      if (e.code !== 'EPIPE') throw e;
    });
  }
  const outDir = path.dirname(entry);
  require('./compile-cache').installCompileCache(outDir);
  // Handed to the bundle (src/main/workers/launch.ts reads it): how its worker threads find this
  // compile cache (their caches are named by this process's Node flags too: V8 applies them to
  // every thread), and the read-lane worker started before the bundle loads.
  const compileCache = {
    preload: require.resolve('./worker-compile-cache'),
    dir: outDir,
    launcherArgv: process.execArgv,
  };
  globalThis[Symbol.for('evoflux-memory.launch')] = {
    compileCache,
    readLaneWorker: require('./read-lane-prestart').prestartReadLaneWorker(outDir, process.argv.slice(2), compileCache),
  };
  // A command whose process runs out of work before it finished (it awaited something nothing will
  // settle) would exit 0 with its work half done, and the database not closed: it fails instead.
  let finished = false;
  process.on('exit', (code) => {
    if (finished || code !== 0) return;
    process.stderr.write('evoflux-memory: internal error: the command stopped before it finished\n');
    process.exitCode = 1;
  });
  require(entry)
    .main(process.argv.slice(2))
    .then((code) => {
      finished = true;
      process.exitCode = code;
    });
}
