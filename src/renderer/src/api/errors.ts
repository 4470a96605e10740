import { httpStatusFor, type ErrorCode } from '../../../shared/errors';

/** Every failure the renderer shows, whichever transport carried it. */
export class ApiError extends Error {
  constructor(
    public readonly code: ErrorCode,
    message: string,
    public readonly field?: string,
    public readonly status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const ERROR_CODES = Object.keys(httpStatusFor) as ErrorCode[];
const isErrorCode = (v: unknown): v is ErrorCode => typeof v === 'string' && (ERROR_CODES as string[]).includes(v);

/** The code a bare HTTP status stands for, when a proxy or crash left no JSON body. */
export function codeForStatus(status: number): ErrorCode {
  // 503 is shared by busy and unavailable; without a body, "unavailable" is the honest reading.
  if (status === 503) return 'unavailable';
  const exact = ERROR_CODES.find((c) => httpStatusFor[c] === status);
  if (exact) return exact;
  if (status >= 400 && status < 500) return 'invalid_input';
  return status === 503 ? 'unavailable' : 'internal';
}

/** An error value from the wire ({code, message, field}) or an HTTP response, as an ApiError. */
export function toApiError(body: unknown, status?: number): ApiError {
  const wire = (body as { error?: unknown } | null)?.error ?? body;
  if (wire && typeof wire === 'object') {
    const { code, message, field } = wire as { code?: unknown; message?: unknown; field?: unknown };
    if (isErrorCode(code) && typeof message === 'string') {
      return new ApiError(code, message, typeof field === 'string' ? field : undefined, status);
    }
  }
  const code = status === undefined ? 'internal' : codeForStatus(status);
  const message =
    status === 401
      ? 'Access token missing or wrong. Open the address `serve` printed (it carries the token).'
      : `Request failed${status ? ` (HTTP ${status})` : ''}`;
  return new ApiError(code, message, undefined, status);
}

/** A fetch that never reached the server (stopped, wrong port). */
export const unreachable = (cause: unknown): ApiError =>
  new ApiError(
    'unavailable',
    `Cannot reach EvoFlux Memory (${(cause as Error)?.message ?? String(cause)}). Is it still running?`,
  );

/** The command does not exist in this build (another part of the app has not shipped it). */
export const isMissingCommand = (e: unknown): boolean =>
  e instanceof ApiError && e.code === 'not_found' && e.field === 'command';

/** One line for people: what went wrong and, where known, which field. */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) {
    switch (e.code) {
      case 'not_found':
        return isMissingCommand(e) ? 'This feature is not available in this build.' : e.message;
      case 'busy':
        return `Busy: ${e.message}. Try again in a moment.`;
      case 'unauthorized':
      case 'forbidden':
        return e.message;
      case 'unavailable':
        return e.message;
      case 'internal':
        return `Something went wrong inside EvoFlux Memory: ${e.message}`;
      default:
        return e.message;
    }
  }
  return (e as Error)?.message ?? String(e);
}
