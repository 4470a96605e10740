/**
 * The official MCP memory server (`@modelcontextprotocol/server-memory`, a devDependency), started
 * the same way as ours (a child process, one SDK client over stdio) and given the same facts:
 * one entity per fact, its text as the observation. Absent, the bench says so and skips it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { BenchFact } from './data';

export interface Peer {
  pid: number;
  load(facts: readonly BenchFact[]): Promise<void>;
  search(query: string): Promise<unknown>;
  close(): Promise<void>;
}

export const PEER_ENTRY = path.join(
  __dirname,
  '..',
  '..',
  '..',
  'node_modules',
  '@modelcontextprotocol',
  'server-memory',
  'dist',
  'index.js',
);

export const peerInstalled = (): boolean => existsSync(PEER_ENTRY);

export async function startPeer(dir: string, cwd: string): Promise<Peer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PEER_ENTRY],
    cwd,
    env: { ...(process.env as Record<string, string>), MEMORY_FILE_PATH: path.join(dir, 'peer-memory.jsonl') },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'evoflux-bench', version: '0.0.0' });
  await client.connect(transport);
  return {
    pid: transport.pid!,
    load: async (facts) => {
      for (let at = 0; at < facts.length; at += 1000) {
        const entities = facts.slice(at, at + 1000).map((f, i) => ({
          name: `fact-${at + i}`,
          entityType: `${f.scope} ${f.kind}`,
          observations: [f.text],
        }));
        await client.callTool({ name: 'create_entities', arguments: { entities } });
      }
    },
    search: (query) => client.callTool({ name: 'search_nodes', arguments: { query } }),
    close: () => client.close(),
  };
}
