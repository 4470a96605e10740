'use strict';
// Preloaded (`--require`) into a read-lane worker the launcher's bundle starts: installs the
// compile cache (./compile-cache.js) in the worker's own module loader before any of the bundle's
// code loads there, under the worker's own cache names (it runs other functions than the main
// thread). The worker calls `save()` once warm, so the cache holds the ranking code it compiled
// then; a worker its pool terminates never sees `exit`.
const { workerData } = require('node:worker_threads');
const { installCompileCache } = require('./compile-cache');

const installed = workerData?.compileCache
  ? installCompileCache(
      workerData.compileCache.dir,
      process.env,
      `read-lane${JSON.stringify(workerData.compileCache.launcherArgv ?? [])}`,
    )
  : { save: () => {} };

module.exports = { save: installed.save };
