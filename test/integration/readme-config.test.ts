import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { tempHome } from '../helpers/home';
import { FOREIGN_CWD } from '../helpers/cli';
import { startServe, type ServeProcess } from '../helpers/serve';
import { SERVER_NODE_FLAGS } from '../helpers/server-flags';

const ROOT = path.resolve(__dirname, '../..');

/** The JSON block that follows `<!-- readme-config: NAME -->` in the README, as written there. */
function readmeConfig(name: string): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const match = new RegExp(`<!-- readme-config: ${name} -->\\s*\`\`\`json\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match) throw new Error(`README has no readme-config block named ${name}`);
  return match[1]!;
}

interface ServerEntry {
  type?: string;
  command?: string;
  args?: string[];
  url?: string;
  headers?: Record<string, string>;
}

/** Connects the SDK client the way the client app would, from one configuration entry. */
function transportFor(entry: ServerEntry): Transport {
  if (entry.url) {
    return new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } });
  }
  return new StdioClientTransport({
    command: entry.command!,
    args: entry.args!,
    cwd: FOREIGN_CWD,
    env: { ...(process.env as Record<string, string>), EVOFLUX_HOME: '' },
    stderr: 'pipe',
  });
}

describe("the README's client configurations work as written", () => {
  const home = tempHome('evoflux-readme-');
  const workspace = path.join(home.dir, 'src', 'my-app');
  let serve: ServeProcess;

  /** The README's placeholders, filled in for this machine. */
  const fill = (json: string) =>
    json
      .replaceAll('/path/to/evoflux-memory', ROOT)
      .replaceAll('<the token in /path/to/home/http-token>', serve.token)
      .replaceAll('${input:evoflux-token}', serve.token)
      .replaceAll('/path/to/home', home.dir)
      .replaceAll('/home/me/src/my-app', workspace)
      .replaceAll('http://127.0.0.1:7437', serve.url);

  beforeAll(async () => {
    serve = await startServe(home.dir);
  });
  afterAll(async () => {
    await serve?.stop();
    home.cleanup();
  });

  const entries = (name: string): [string, ServerEntry][] => {
    const config = JSON.parse(fill(readmeConfig(name)));
    return Object.entries(config.mcpServers ?? config.servers);
  };

  for (const name of ['stdio', 'http', 'vscode']) {
    it(`${name}: every server entry connects and is confined to project my-app`, async () => {
      const servers = entries(name);
      expect(servers.length).toBeGreaterThan(0);
      for (const [label, entry] of servers) {
        const client = new Client({ name: `readme-${label}`, version: '0.0.0' });
        await client.connect(transportFor(entry));
        try {
          const r = await client.callTool({ name: 'memory_create_session', arguments: { title: label } });
          expect(r.isError, `${label}: ${JSON.stringify(r.content)}`).toBeFalsy();
          expect((r.structuredContent as { projectId: string }).projectId).toBe('my-app');
          const outside = await client.callTool({ name: 'memory_create_session', arguments: { projectId: 'other' } });
          expect(outside.isError, label).toBe(true);
        } finally {
          await client.close();
        }
      }
    });
  }

  it('stdio entries start the server with the flags bin/server-flags.js names, before the script', () => {
    const stdio = [...entries('stdio'), ...entries('vscode')].filter(([, entry]) => entry.command);
    expect(stdio.length).toBeGreaterThan(0);
    for (const [label, entry] of stdio) {
      const script = entry.args!.findIndex((a) => a.endsWith('bin/evoflux-memory.js'));
      expect(entry.args!.slice(0, script), label).toEqual(SERVER_NODE_FLAGS);
    }
  });
});
