'use strict';
// Node flags for a long-running agent server (`mcp`, `serve`), as the README's client
// configurations pass them before the script path. Both can only be set as Node starts, so they
// are flags, not code. test/integration/readme-config.test.ts checks that the README passes
// exactly these.
// - V8 grows a thread's young generation up to two 16 MB semi-spaces under allocation pressure
//   and keeps them while idle; 1 MB semi-spaces cost an idle agent server ~30 MB less (main
//   thread and read-lane worker) with no slowdown its benchmarks can tell.
// - V8's background threads (concurrent compiling and marking) default to four; each keeps its
//   own native allocator arena, memory it does not give back once it is idle. One thread keeps
//   ~8 MB less resident, and a server that mostly waits has little to do in the background.
// - V8 collects the old generation only while a thread allocates, so after a burst of calls an
//   idle server keeps its grown heap (~8 MB at 1k facts after 1,000 writes). `--expose-gc` lets
//   the server collect once it rests (src/main/rest-when-quiet.ts); it changes nothing else.
const SERVER_NODE_FLAGS = ['--max-semi-space-size=1', '--v8-pool-size=1', '--expose-gc'];

module.exports = { SERVER_NODE_FLAGS };
