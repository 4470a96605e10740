import type { CommandError } from '../../shared/errors';

/** A command error and the CLI flag it is about, when it is about one. */
export interface CliFailure {
  error: CommandError;
  /** The flag as the user typed it (`--parent`) or would type it (`--parent-session-id`). */
  flag?: string;
}

/** A command error together with the flag it is about, thrown by a command; main() prints it. */
export class FlagError extends Error {
  constructor(
    readonly error: CommandError,
    readonly flag: string | undefined,
  ) {
    super(error.message);
  }
}

/**
 * Names the flag instead of the contract field: `parentSessionId: not found` becomes
 * `--parent: not found` when the user typed --parent. A nested field keeps its inner path:
 * `--tool-rounds (0.content): ...`.
 */
export function humanMessage({ error, flag }: CliFailure): string {
  if (!flag || !error.field) return error.message;
  const head = error.field.split('.')[0]!;
  const inner = error.field.slice(head.length + 1);
  const prefix = `${error.field}: `;
  const body = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return `${flag}${inner ? ` (${inner})` : ''}: ${body}`;
}

/** The one-line JSON error with --json: the contract's error (as every door reports it) plus the flag. */
export const jsonError = ({ error, flag }: CliFailure): string =>
  JSON.stringify({ error: { ...error.toJSON(), ...(flag ? { flag } : {}) } });

/** The field's top-level name, which is what a flag stands for. */
export const headField = (field: string | undefined): string | undefined => field?.split('.')[0];
