import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_MCP_MESSAGE_BYTES, HeadAndTail, oversizeMessage, oversizeReply } from './mcp-oversize';

const NEWLINE = 0x0a;

/**
 * MCP over stdio, one JSON-RPC message per line, like the SDK's StdioServerTransport, except
 * for a line over the bound: the SDK's read buffer throws and the transport closes, so one
 * oversized call ends the server and the client's turn with it. Here such a line is dropped as
 * it streams in (only its first and last bytes are kept, to find its id), answered with an error
 * and the next line is read as usual. A line that is not JSON-RPC is reported and skipped.
 */
export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private pending: Buffer[] = [];
  private pendingSize = 0;
  private oversize: HeadAndTail | null = null;
  private started = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    readonly maxMessageBytes = DEFAULT_MCP_MESSAGE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    for (;;) {
      const newline = data.indexOf(NEWLINE, start);
      this.take(data.subarray(start, newline === -1 ? data.length : newline));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  };

  private readonly onStreamError = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    if (this.started) throw new Error('BoundedStdioServerTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.oversize) return this.oversize.push(piece);
    if (this.pendingSize + piece.length <= this.maxMessageBytes) {
      this.pending.push(piece);
      this.pendingSize += piece.length;
      return;
    }
    // Over the bound: from here on the line is only measured, never held.
    this.oversize = new HeadAndTail();
    for (const held of this.pending) this.oversize.push(held);
    this.oversize.push(piece);
    this.pending = [];
    this.pendingSize = 0;
  }

  private endLine(): void {
    const dropped = this.oversize;
    if (dropped) {
      this.oversize = null;
      this.onerror?.(
        new Error(`dropped a message of ${dropped.size} bytes: ${oversizeMessage(dropped.size, this.maxMessageBytes)}`),
      );
      const reply = oversizeReply(dropped.sniff(), dropped.size, this.maxMessageBytes);
      if (reply) void this.send(reply);
      return;
    }
    const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingSize = 0;
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (e) {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    this.onmessage?.(message);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pending = [];
    this.oversize = null;
    this.onclose?.();
  }

  /** Set while stdout's buffer is full: every send waits for the same drain (one listener, not one per answer). */
  private drained: Promise<void> | null = null;

  send(message: JSONRPCMessage): Promise<void> {
    if (this.stdout.write(JSON.stringify(message) + '\n')) return this.drained ?? Promise.resolve();
    this.drained ??= new Promise<void>((resolve) =>
      this.stdout.once('drain', () => {
        this.drained = null;
        resolve();
      }),
    );
    return this.drained;
  }
}
