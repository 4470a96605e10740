'use strict';
// A V8 code cache for the compiled bundle (out/main). Compiling its ~1.4 MB of JavaScript is the
// largest single cost of a CLI command's start-up, paid again by every run although the files
// only change with `npm run build`. The first run stores V8's compiled form of each file it loaded
// (as it stands at exit, so the functions that run also count) in out/main/.compile-cache/; later
// runs hand it back to V8, which skips parsing. A cache is named by the file's content hash, the
// flags Node was started with (V8 rejects a cache written under other flags, so a server started
// with `--max-semi-space-size` keeps caches of its own instead of replacing the CLI's on every
// start) and the Node version. V8 checks it again (a rejected cache is compiled as usual and
// replaced), and the folder is emptied with the rest of out/ by every build. Nothing is written
// where the folder cannot be (a read-only install just runs uncached). EVOFLUX_COMPILE_CACHE=0
// turns it off.
// `npm run build` writes the caches once (scripts/warm-compile-cache.js), so even a first run is fast.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

/**
 * Installs the cache for every file below `dir`; other modules load as usual. A worker thread
 * passes its own `thread` name: its caches are kept apart from the main thread's, since the two
 * run different functions of the same files. `save()` writes what is not cached yet now (a worker
 * calls it once warm; it is never sent `exit` when its pool terminates it); the process's exit
 * writes the rest.
 */
function installCompileCache(dir, env = process.env, thread = 'main') {
  const saveNow = { save: () => {} };
  if (env.EVOFLUX_COMPILE_CACHE === '0') return saveNow;
  // The build's warm-up runs a few commands with `refresh`: each run rewrites the caches, so they
  // end up holding the functions all of them ran.
  const refresh = env.EVOFLUX_COMPILE_CACHE === 'refresh';
  const prefix = dir + path.sep;
  const cacheDir = path.join(dir, '.compile-cache');
  const flags = startFlags(env) + thread;
  const unsaved = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileWithCache(content, filename) {
    if (!filename.startsWith(prefix)) return compile.call(this, content, filename);
    const cacheFile = path.join(cacheDir, cacheName(filename, content, flags));
    const cachedData = readOrNull(cacheFile);
    const script = new vm.Script(Module.wrap(content), {
      filename,
      cachedData,
      importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (refresh || !cachedData || script.cachedDataRejected) unsaved.push({ script, cacheFile });
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, path.dirname(filename));
  };
  const saveUnsaved = () => save(cacheDir, unsaved.splice(0));
  process.once('exit', saveUnsaved);
  return { save: saveUnsaved };
}

/** Named by the file's content (~2 ms to hash the bundle), the start-up flags, the thread and Node's version. */
const cacheName = (filename, content, flags) =>
  `${path.basename(filename, '.js')}-${createHash('sha1').update(content).update(flags).digest('hex').slice(0, 20)}-${process.version}.bin`;

/** Node's and V8's flags for this process: its command line and NODE_OPTIONS. */
const startFlags = (env) => `\0${JSON.stringify([process.execArgv, env.NODE_OPTIONS ?? ''])}`;

function readOrNull(file) {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** The `require` a CommonJS module is given (the loader's own is not public). */
function requireFor(mod) {
  const require = (id) => mod.require(id);
  require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
  require.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}

/** Written at exit (temp file, then rename: processes starting together never read half a file). */
function save(cacheDir, unsaved) {
  if (unsaved.length === 0) return;
  try {
    mkdirSync(cacheDir, { recursive: true });
  } catch {
    return; // a read-only install: it runs uncached
  }
  for (const { script, cacheFile } of unsaved) {
    const temp = `${cacheFile}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, script.createCachedData());
      renameSync(temp, cacheFile);
    } catch {
      rmSync(temp, { force: true }); // a full disk: the next run tries again
    }
  }
}

module.exports = { installCompileCache };
