import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { groupDigits } from '../../shared/locale-free';

/**
 * A JSON-RPC message larger than a transport accepts is never parsed: it is read (and dropped)
 * chunk by chunk, keeping only its first and last bytes, which are enough to find the request's
 * id and method. The answer is an error the caller can act on, and the server keeps serving.
 */

/** How much of the start and of the end of an oversized message is kept to find its id and method. */
export const SNIFF_BYTES = 64 * 1024;

/**
 * The bound of one MCP message, on stdio and over HTTP: room for the largest text a tool takes
 * (a million characters, JSON-escaped) with its envelope, and well under what would strain the process.
 */
export const DEFAULT_MCP_MESSAGE_BYTES = 8 * 1024 * 1024;

const ID_VALUE = String.raw`(-?\d{1,16}|"(?:[^"\\]|\\.){0,200}")`;
/** Clients that write the id first (`{"jsonrpc":"2.0","id":7,...`). */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}`);
/** Clients that write it last, after the params (the TypeScript SDK): `...,"id":7}` ends the message. */
const ID_AT_END = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);
const METHOD = /"method"\s*:\s*"([A-Za-z0-9_/.$-]{1,100})"/;

export interface SniffedRequest {
  id: RequestId | null;
  method: string | null;
}

/** The id and method of a message seen only by its first and last bytes; null where they cannot be told. */
export function sniffRequest(head: string, tail: string): SniffedRequest {
  const raw = ID_AT_START.exec(head)?.[1] ?? ID_AT_END.exec(tail)?.[1] ?? null;
  let id: RequestId | null = null;
  if (raw !== null) {
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value))) id = value;
    } catch {
      id = null;
    }
  }
  return { id, method: METHOD.exec(head)?.[1] ?? null };
}

const bytes = (n: number) => `${groupDigits(n)} bytes`;

export const oversizeMessage = (size: number, max: number): string =>
  `request too large: ${size > max ? bytes(size) : `over ${bytes(max)}`}; this server accepts at most ${bytes(max)} ` +
  'per message. Nothing was run or stored; send less (split a long text, or store it in parts).';

/**
 * The answer to an oversized message. A tool call gets a tool error result, which the model
 * reads and can correct; any other request gets a JSON-RPC error (id null when it could not be
 * found, as JSON-RPC asks for an unreadable request). A notification gets no answer.
 */
export function oversizeReply(sniffed: SniffedRequest, size: number, max: number): JSONRPCMessage | null {
  const message = oversizeMessage(size, max);
  if (sniffed.id !== null && sniffed.method === 'tools/call') {
    return {
      jsonrpc: '2.0',
      id: sniffed.id,
      result: {
        isError: true,
        content: [{ type: 'text', text: `invalid_input: ${message}` }],
        _meta: { 'evoflux/error': { code: 'invalid_input', message, field: 'request' } },
      },
    };
  }
  if (sniffed.id === null && sniffed.method?.startsWith('notifications/')) return null;
  return {
    jsonrpc: '2.0',
    id: sniffed.id as RequestId,
    error: { code: -32600, message: `Invalid Request: ${message}`, data: { maxBytes: max, size } },
  };
}

/**
 * Keeps the first and the last SNIFF_BYTES of a message that streams past in chunks, without
 * holding the rest.
 */
export class HeadAndTail {
  private head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer = Buffer.alloc(0);
  size = 0;

  push(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.headSize < SNIFF_BYTES) {
      const part = chunk.subarray(0, SNIFF_BYTES - this.headSize);
      this.head.push(part);
      this.headSize += part.length;
    }
    const joined = this.tail.length + chunk.length > SNIFF_BYTES ? Buffer.concat([this.tail, chunk]) : null;
    this.tail = joined ? joined.subarray(Math.max(0, joined.length - SNIFF_BYTES)) : Buffer.concat([this.tail, chunk]);
  }

  sniff(): SniffedRequest {
    return sniffRequest(Buffer.concat(this.head).toString('utf8'), this.tail.toString('utf8'));
  }
}
