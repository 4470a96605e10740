#!/usr/bin/env node
'use strict';
// Runs the compiled CLI (out/main/cli.js, built by `npm run build`; `npm ci` builds it too).
// Everything is located from this file, never from the working directory, so an agent client
// may start it from any folder.
const { existsSync } = require('node:fs');
const path = require('node:path');

// V8 doubles its young generation under allocation pressure, up to 32 MB, and keeps it while
// idle: an agent server that once answered a burst of calls would hold that for the rest of its
// life. Growth factor 1 keeps it at its starting size; scavenges come more often but each copies
// only the survivors, few after a request. It is set for every command, not only the servers,
// because V8 stamps its flags into the compile cache below and rejects a cache written under
// other flags. A worker thread's start undoes it, so the read-lane worker sets it again
// (src/main/workers/young-generation.ts).
require('node:v8').setFlagsFromString('--semi-space-growth-factor=1');

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
  require('./compile-cache').installCompileCache(path.dirname(entry));
  require(entry)
    .main(process.argv.slice(2))
    .then((code) => {
      process.exitCode = code;
    });
}
