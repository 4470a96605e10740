import { createReadStream } from 'node:fs';
import { ImportInputError } from './types';

export interface Line {
  text: string;
  /** 1-based. */
  number: number;
  /** Byte offset of the line's first byte. */
  offset: number;
}

export interface LineStreamOptions {
  /** A longer line is refused with its number (it would have to be held in memory whole). */
  maxLineBytes: number;
  onBytes?(bytesRead: number): void;
  signal?: AbortSignal;
  chunkBytes?: number;
}

const NEWLINE = 0x0a;

/**
 * The lines of a UTF-8 file, streamed: split on the newline byte (never inside a multi-byte
 * character), a trailing CR and a leading byte-order mark removed, empty lines skipped.
 */
export async function* streamLines(file: string, options: LineStreamOptions): AsyncGenerator<Line> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineStart = 0;
  let number = 1;
  let bytes = 0;
  const take = (tail: Buffer): Line | null => {
    const raw = pending.length ? Buffer.concat([...pending, tail]) : tail;
    pending = [];
    pendingBytes = 0;
    let text = raw.toString('utf8');
    if (number === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    const line = { text, number, offset: lineStart };
    number++;
    return text.trim() ? line : null;
  };
  const tooLong = () =>
    new ImportInputError(
      file,
      `line ${number} (byte ${lineStart})`,
      `is longer than ${Math.round(options.maxLineBytes / 1024 / 1024)} MB; a line holds one message`,
    );
  const stream = createReadStream(file, { highWaterMark: options.chunkBytes ?? 1024 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (options.signal?.aborted) return;
      const ready: Line[] = [];
      let from = 0;
      for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
        if (pendingBytes + at - from > options.maxLineBytes) throw tooLong();
        const line = take(chunk.subarray(from, at));
        if (line) ready.push(line);
        lineStart = bytes + at + 1;
        from = at + 1;
      }
      if (from < chunk.length) {
        pending.push(chunk.subarray(from));
        pendingBytes += chunk.length - from;
        if (pendingBytes > options.maxLineBytes) throw tooLong();
      }
      bytes += chunk.length;
      options.onBytes?.(bytes);
      yield* ready;
    }
    if (pendingBytes > 0) {
      const line = take(Buffer.alloc(0));
      if (line) yield line;
    }
  } finally {
    stream.destroy();
  }
}
