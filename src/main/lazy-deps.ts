/**
 * CommonJS packages whose initialisation shows in a CLI command's start-up (yaml alone is several
 * milliseconds, proper-lockfile patches fs through graceful-fs, write-file-atomic installs exit
 * handlers), loaded on first use. `require`, not `import`: the bundle then runs each package's
 * module code when it is first asked for, not when the engine's modules load.
 */
export const yaml = (): typeof import('yaml') => require('yaml');

export const properLockfile = (): typeof import('proper-lockfile') => require('proper-lockfile');

export const writeFileAtomic = (): typeof import('write-file-atomic') => require('write-file-atomic');
