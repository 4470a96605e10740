import type { Input, Output } from './client';
import { toApiError, unreachable } from './errors';
import { takeTokenFromLocation } from './transport';

export type ImportJob = Output<'import.status'>['jobs'][number];
export type UploadOptions = Omit<Input<'import.conversations'>, 'from' | 'waitForExtraction'>;

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** The HTTP door's upload route (src/main/api/import-upload.ts). */
export const UPLOAD_PATH = '/api/import/upload';

/**
 * Sends a chosen export file to `serve` (the browser cannot hand the engine a path): the body is
 * the file itself, streamed by the browser, with upload progress; the answer is the import job
 * that starts once the file has arrived (followed with import.status).
 */
export function uploadExport(
  file: File,
  options: UploadOptions,
  onProgress: (loaded: number, total: number) => void,
): Promise<ImportJob> {
  const { token } = takeTokenFromLocation(window.location, window.sessionStorage);
  const query = new URLSearchParams({ name: file.name });
  for (const [key, value] of Object.entries(options)) if (value) query.set(key, String(value));
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${UPLOAD_PATH}?${query}`);
    xhr.setRequestHeader('Authorization', `Bearer ${token ?? ''}`);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      const body = parseJson(xhr.responseText);
      if (xhr.status === 202) resolve(body as ImportJob);
      else reject(toApiError(body, xhr.status));
    };
    xhr.onerror = () => reject(unreachable(new Error('the upload did not reach the server')));
    xhr.send(file);
  });
}
