import { createRequire } from 'node:module';
import path from 'node:path';

/** The Node flags the README's client configurations start a server with (bin/server-flags.js). */
export const SERVER_NODE_FLAGS: string[] = createRequire(__filename)(
  path.resolve(__dirname, '../../bin/server-flags.js'),
).SERVER_NODE_FLAGS;
