'use strict';
// Node flags for a long-running agent server (`mcp`, `serve`), as the README's client
// configurations pass them before the script path. V8 grows a thread's young generation up to two
// 16 MB semi-spaces under allocation pressure and keeps them while idle; 1 MB semi-spaces cost an
// idle agent server ~30 MB less (main thread and read-lane worker) with no slowdown its benchmarks
// can tell. The size can only be set as Node starts, so it is a flag, not code.
// test/integration/readme-config.test.ts checks that the README passes exactly these.
const SERVER_NODE_FLAGS = ['--max-semi-space-size=1'];

module.exports = { SERVER_NODE_FLAGS };
