import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, FOREIGN_CWD } from './cli';

export interface McpSession {
  client: Client;
  /** Everything the server wrote to stderr (its logs). */
  stderr(): string;
  /** Calls a tool and returns its structured output; throws with the tool's error text on isError. */
  call<T = any>(name: string, args: Record<string, unknown>): Promise<T>;
  /** Calls a tool and returns the raw MCP result, errors included. */
  raw(name: string, args: unknown): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** A session with a server this process started (over stdio). */
export interface StdioMcpSession extends McpSession {
  /** The server process's id. */
  pid: number;
}

export interface ConnectOptions {
  /** file:// URIs the client offers as its roots (the client then declares the roots capability). */
  roots?: string[];
  /** Where the server is started; by default a folder outside the checkout, as an agent client would. */
  cwd?: string;
  /** Node flags before the script path, as a client configuration may give them (bin/server-flags.js). */
  nodeFlags?: string[];
}

/** Spawns the real `evoflux-memory mcp --home DIR` and connects the SDK's own client to it. */
export async function connectMcp(
  home: string,
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
  options: ConnectOptions = {},
): Promise<StdioMcpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(options.nodeFlags ?? []), BIN, 'mcp', '--home', home, ...extraArgs],
    cwd: options.cwd ?? FOREIGN_CWD,
    env: { ...(process.env as Record<string, string>), EVOFLUX_HOME: '', ...(env as Record<string, string>) },
    stderr: 'pipe',
  });
  let logs = '';
  transport.stderr?.on('data', (chunk: Buffer) => (logs += chunk.toString('utf8')));
  const client = new Client(
    { name: 'evoflux-test', version: '0.0.0' },
    options.roots ? { capabilities: { roots: { listChanged: true } } } : {},
  );
  if (options.roots) {
    const roots = options.roots;
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((uri) => ({ uri })) }));
  }
  try {
    await client.connect(transport);
  } catch (e) {
    // A server that exits while starting says why on stderr: keep it in the failure.
    throw new Error(`mcp server did not start: ${(e as Error).message}\n${logs}`, { cause: e });
  }
  const raw = (name: string, args: unknown) =>
    client.callTool({ name, arguments: args as Record<string, unknown> }) as Promise<CallToolResult>;
  return {
    client,
    pid: transport.pid!,
    stderr: () => logs,
    raw,
    call: async (name, args) => {
      const r = await raw(name, args);
      if (r.isError) throw new Error(`${name} failed: ${(r.content[0] as { text: string }).text}`);
      return r.structuredContent as any;
    },
    close: () => client.close(),
  };
}

export const errorText = (r: CallToolResult): string => (r.content[0] as { text: string }).text;
export const errorMeta = (r: CallToolResult) =>
  (r._meta?.['evoflux/error'] ?? null) as { code: string; field?: string; message: string } | null;
