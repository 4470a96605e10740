import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { agentSchemasReady, createMcpServer } from '../../src/main/api/mcp';
import { openTestEngine, type TestEngine } from '../helpers/home';

let t: TestEngine | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

describe('MCP start-up', () => {
  it('builds the agent commands schemas in the background once a client has initialized', async () => {
    t = openTestEngine();
    const { server } = createMcpServer(t.engine, { context: { projects: ['alpha'], workspaces: [], folders: [] } });
    expect(agentSchemasReady()).toBeNull();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '0.0.0' });
    await client.connect(clientSide);
    await expect(agentSchemasReady()).resolves.toBeUndefined();
    const created = await client.callTool({ name: 'memory_create_session', arguments: { projectId: 'alpha' } });
    expect(created.isError).toBeFalsy();
    await client.close();
  });
});
