import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpSession } from './mcp';

export interface HttpMcpSession extends McpSession {
  transport: StreamableHTTPClientTransport;
}

/**
 * The SDK's own client over Streamable HTTP, configured the way the README tells a client to:
 * the `/mcp` URL with the context as query parameters and the token in an Authorization header.
 */
export async function connectHttpMcp(
  baseUrl: string,
  token: string,
  context: { project?: string[]; workspace?: string[]; folder?: string[] } = {},
  headers: Record<string, string> = {},
): Promise<HttpMcpSession> {
  const url = new URL(`${baseUrl}/mcp`);
  for (const [key, values] of Object.entries(context)) for (const v of values ?? []) url.searchParams.append(key, v);
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
  });
  const client = new Client({ name: 'evoflux-http-test', version: '0.0.0' });
  await client.connect(transport);
  const raw = (name: string, args: unknown) =>
    client.callTool({ name, arguments: args as Record<string, unknown> }) as Promise<CallToolResult>;
  return {
    client,
    transport,
    stderr: () => '',
    raw,
    call: async (name, args) => {
      const r = await raw(name, args);
      if (r.isError) throw new Error(`${name} failed: ${(r.content[0] as { text: string }).text}`);
      return r.structuredContent as any;
    },
    close: () => client.close(),
  };
}
