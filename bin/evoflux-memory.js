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
  require(entry)
    .main(process.argv.slice(2))
    .then((code) => {
      process.exitCode = code;
    });
}
