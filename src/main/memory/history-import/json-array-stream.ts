import { createReadStream } from 'node:fs';
import { Tokenizer, TokenParser, TokenType, type ParsedTokenInfo } from '@streamparser/json';
import { ImportInputError } from './types';

/** One element of the top-level array: its index and the byte offset where it starts. */
export interface ArrayElement {
  value: unknown;
  index: number;
  offset: number;
}

export interface JsonArrayStreamOptions {
  /** One element larger than this is refused (it would have to be held in memory whole). */
  maxElementBytes: number;
  /** Bytes read so far, after each chunk. */
  onBytes?(bytesRead: number): void;
  signal?: AbortSignal;
  /** Read size; small values let tests cut a file between any two bytes. */
  chunkBytes?: number;
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/**
 * Tokenizer -> TokenParser for `$.*`, with the bookkeeping the parser does not do: the depth,
 * where each element starts (for error messages and the size limit) and what comes after the
 * array. Elements are queued in `ready` as the parser completes them.
 */
class ArrayReader {
  readonly ready: ArrayElement[] = [];
  private readonly tokenizer = new Tokenizer();
  private readonly parser = new TokenParser({ paths: ['$.*'], keepStack: false });
  private depth = 0;
  private index = 0;
  private elementStart = -1;
  private lastOffset = 0;
  private failure: ImportInputError | null = null;
  closed = false;

  constructor(
    private readonly file: string,
    private readonly maxElementBytes: number,
  ) {
    this.tokenizer.onToken = (t) => this.onToken(t);
    this.parser.onValue = ({ value }) => {
      this.ready.push({ value, index: this.index++, offset: this.elementStart });
      this.elementStart = -1;
    };
    this.tokenizer.onError = (e) => this.syntaxError(e);
    this.parser.onError = (e) => this.syntaxError(e);
    // The parser ends itself after the top-level array closes; onToken refuses anything after it.
    this.parser.onEnd = () => undefined;
  }

  fail(position: string, reason: string): never {
    this.failure ??= new ImportInputError(this.file, position, reason);
    throw this.failure;
  }

  write(chunk: Buffer): void {
    try {
      this.tokenizer.write(chunk);
    } catch (e) {
      this.syntaxError(e);
    }
  }

  private onToken(t: ParsedTokenInfo): void {
    this.lastOffset = t.offset;
    if (this.closed) this.fail(`byte ${t.offset}`, 'has more after the array of conversations ends');
    if (this.depth === 0 && t.token !== TokenType.LEFT_BRACKET) {
      this.fail(`byte ${t.offset}`, 'is not a JSON array of conversations (an export starts with "[")');
    }
    const startsElement = t.token !== TokenType.COMMA && t.token !== TokenType.RIGHT_BRACKET;
    if (this.depth === 1 && this.elementStart < 0 && startsElement) this.elementStart = t.offset;
    if (this.elementStart >= 0 && t.offset - this.elementStart > this.maxElementBytes) {
      this.fail(
        `conversation ${this.index} (byte ${this.elementStart})`,
        `is larger than ${mb(this.maxElementBytes)}; it cannot be imported`,
      );
    }
    const token = t.token;
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) this.depth++;
    else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) this.closed = --this.depth === 0;
    this.parser.write(t);
  }

  private syntaxError(e: unknown): never {
    if (e instanceof ImportInputError) throw e;
    const message = (e as Error).message;
    const where = /absolute position "(\d+)"/.exec(message)?.[1] ?? String(this.lastOffset);
    const reason = message.replace(/ at chunk position .*$/, '').replace(/\.$/, '');
    return this.fail(`byte ${where}`, `is not valid JSON (${reason})`);
  }
}

/**
 * Streams the elements of a file whose top level is a JSON array, one at a time, without ever
 * holding more than one element (and one read chunk) in memory. Elements found in a chunk are
 * handed over after the chunk is tokenized and before the next is read, so a slow consumer
 * slows the reading instead of filling memory. Every syntax error names the byte offset.
 */
export async function* streamJsonArray(file: string, options: JsonArrayStreamOptions): AsyncGenerator<ArrayElement> {
  const reader = new ArrayReader(file, options.maxElementBytes);
  let bytes = 0;
  const stream = createReadStream(file, { highWaterMark: options.chunkBytes ?? 1024 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (options.signal?.aborted) return;
      reader.write(chunk);
      bytes += chunk.length;
      options.onBytes?.(bytes);
      while (reader.ready.length) yield reader.ready.shift()!;
    }
    if (bytes === 0) reader.fail('byte 0', 'is empty');
    if (!reader.closed) reader.fail(`byte ${bytes}`, 'ends in the middle of the JSON (the file is cut short)');
  } finally {
    stream.destroy();
  }
}
