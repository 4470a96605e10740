#!/usr/bin/env node
// Runs the TypeScript CLI straight from the checkout: tsx compiles on the fly, nothing to build.
require('tsx/cjs');
require('../src/main/cli.ts')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
