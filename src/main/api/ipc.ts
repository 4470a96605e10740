import type { Engine } from '../engine';
import { dispatch } from '../commands/dispatch';
import { OWNER } from '../commands/principal';
import { CommandError, isCommandError } from '../../shared/errors';
import type { IpcResult } from '../../preload/api';

/**
 * Is `frameUrl` our own renderer page? Packaged builds load a file:// page, compared exactly
 * (query and fragment ignored); `npm run dev` loads the Vite server, compared by origin.
 * Anything else — a navigated-away frame, an iframe, a devtools page — is refused.
 */
export function isOwnPage(frameUrl: string | undefined, pageUrl: string): boolean {
  if (!frameUrl) return false;
  let frame: URL;
  let page: URL;
  try {
    frame = new URL(frameUrl);
    page = new URL(pageUrl);
  } catch {
    return false;
  }
  if (page.protocol === 'file:') return frame.protocol === 'file:' && frame.pathname === page.pathname;
  return frame.origin === page.origin;
}

/** The IPC door: sender check, then the same dispatch every door uses; errors come back as values. */
export async function handleIpcCall(
  engine: Engine,
  frameUrl: string | undefined,
  pageUrl: string,
  name: unknown,
  input: unknown,
): Promise<IpcResult> {
  try {
    if (!isOwnPage(frameUrl, pageUrl))
      throw new CommandError('forbidden', 'sender: not the EvoFlux Memory window', 'sender');
    if (typeof name !== 'string') throw new CommandError('invalid_input', 'command: must be a string', 'command');
    return { ok: true, value: await dispatch(engine, name, input, OWNER) };
  } catch (e) {
    const error = isCommandError(e) ? e : new CommandError('internal', (e as Error)?.message ?? String(e));
    if (error.code === 'internal') engine.log.error('ipc: internal error', e);
    return { ok: false, error: error.toJSON() };
  }
}
