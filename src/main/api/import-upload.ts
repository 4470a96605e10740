import { randomBytes } from 'node:crypto';
import { constants, rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { Engine } from '../engine';
import { toCommandError } from '../commands/dispatch';
import { contract } from '../../shared/contract';
import { CommandError } from '../../shared/errors';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../private-fs';
import { UPLOAD_PREFIX, uploadDir, type ImportJobState } from '../memory/history-import/service';
import { HttpStatusError } from './http-limits';

/**
 * `POST /api/import/upload?format=&projectId=&workspace=&folderId=&name=` with the export as the
 * raw body (application/octet-stream): the window's "Import history" in a browser, which cannot
 * hand the engine a path. The body is streamed to a private temp file inside the data home
 * (never held in memory), the import starts in the background, and the answer (202) is its
 * job: the page follows it with import.status. The temp file is removed when the import ends,
 * however it ends, and at once when the upload fails or is too large.
 */
export const UPLOAD_PATH = '/api/import/upload';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

const tooLarge = (max: number) =>
  new HttpStatusError(
    413,
    new CommandError(
      'invalid_input',
      `body: the file is larger than the import limit of ${max} bytes (import.maxFileBytes in settings.yaml)`,
      'body',
    ),
  );

/** The upload's own file name, for people to recognise: a base name, printable, at most 200 characters. */
function displayName(raw: string | null): string {
  const base = path.basename((raw ?? '').replace(/\\/g, '/'));
  const clean = [...base]
    .filter((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) !== 0x7f)
    .join('')
    .slice(0, 200);
  return clean || 'upload';
}

/** The query as import.conversations input (validated by the contract), without `from`. */
function importOptions(query: URLSearchParams) {
  const raw: Record<string, unknown> = { from: 'upload' };
  for (const key of ['format', 'projectId', 'workspace', 'folderId']) {
    const value = query.get(key);
    if (value !== null && value !== '') raw[key] = value;
  }
  const parsed = contract['import.conversations'].input.safeParse(raw);
  if (!parsed.success) throw toCommandError(parsed.error);
  return parsed.data;
}

/**
 * Reads what is left of a refused body and drops it, so the client reads the answer instead of
 * a reset; past `bound` more bytes the connection is closed.
 */
function discardRest(req: IncomingMessage, bound: number): void {
  let dropped = 0;
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > bound) req.socket.destroy();
  });
  req.resume();
}

/** Streams the body to `handle`, refusing it past `max` bytes. Resolves with the size. */
function receive(req: IncomingMessage, handle: FileHandle, max: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let size = 0;
    let failed = false;
    let writing: Promise<unknown> = Promise.resolve();
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      reject(e);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        discardRest(req, Math.max(64 * 1024 * 1024, max));
        return fail(tooLarge(max));
      }
      req.pause();
      writing = handle.write(chunk).then(() => req.resume(), fail);
    });
    req.on('end', () => void writing.then(() => failed || resolve(size)));
    req.on('error', fail);
    req.on('close', () => {
      if (!req.complete) fail(new CommandError('invalid_input', 'body: the upload was cut off', 'body'));
    });
  });
}

export async function receiveImportUpload(
  engine: Engine,
  req: IncomingMessage,
  query: URLSearchParams,
): Promise<ImportJobState> {
  if (req.method !== 'POST') throw new CommandError('invalid_input', `method: ${UPLOAD_PATH} needs POST`, 'method');
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/octet-stream') {
    throw new CommandError('invalid_input', 'content-type: must be application/octet-stream', 'content-type');
  }
  const options = importOptions(query);
  const max = engine.settings.import.maxFileBytes;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    discardRest(req, Math.max(64 * 1024 * 1024, max));
    throw tooLarge(max);
  }
  if (engine.historyImport.running) {
    throw new CommandError('busy', 'an import is already running; wait for it (import.status shows its progress)');
  }
  const dir = uploadDir(engine.paths);
  ensurePrivateDir(dir);
  const file = path.join(dir, `${UPLOAD_PREFIX}${process.pid}-${randomBytes(8).toString('hex')}.upload`);
  const handle = await open(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
    PRIVATE_FILE_MODE,
  );
  try {
    await receive(req, handle, max);
  } catch (e) {
    await handle.close().catch(() => {});
    rmSync(file, { force: true });
    throw e;
  }
  await handle.close();
  return engine.historyImport.begin({
    ...options,
    from: file,
    displayName: displayName(query.get('name')),
    removeAfter: true,
  });
}
