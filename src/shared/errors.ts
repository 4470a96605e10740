/**
 * The one error type every door maps to its own form (HTTP status, MCP error, CLI exit code).
 * `field` names the offending input field so a caller can fix exactly that.
 */
export type ErrorCode =
  'invalid_input' | 'not_found' | 'conflict' | 'busy' | 'unauthorized' | 'forbidden' | 'unavailable' | 'internal';

export class CommandError extends Error {
  constructor(
    public readonly code: ErrorCode,
    message: string,
    public readonly field?: string,
  ) {
    super(message);
    this.name = 'CommandError';
  }

  toJSON(): { code: ErrorCode; message: string; field?: string } {
    return { code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) };
  }
}

export const invalid = (field: string, message: string): CommandError =>
  new CommandError('invalid_input', `${field}: ${message}`, field);

export const notFound = (what: string, id: string, field?: string): CommandError =>
  new CommandError('not_found', `${what} not found: ${id}`, field);

export function isCommandError(e: unknown): e is CommandError {
  return e instanceof CommandError;
}

/**
 * HTTP status for an error code; shared so the HTTP door and its client agree. `busy` (a lock
 * another process holds for a moment) is a 503 with Retry-After, so generic HTTP clients retry it;
 * `unauthorized` is a missing or wrong token, `forbidden` a request the caller may never make.
 */
export const httpStatusFor: Record<ErrorCode, number> = {
  invalid_input: 400,
  not_found: 404,
  conflict: 409,
  busy: 503,
  unauthorized: 401,
  forbidden: 403,
  unavailable: 503,
  internal: 500,
};
