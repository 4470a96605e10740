import type { CommandName, Contract, InputOf, OutputOf } from '../shared/contract';
import type { ErrorCode } from '../shared/errors';

/** The single IPC channel; main validates every call on it with the contract. */
export const IPC_CHANNEL = 'evoflux:call';
/** Asks main for a native "open file" dialog (Import history); answers the chosen path or null. */
export const IPC_PICK_IMPORT_FILE = 'evoflux:pick-import-file';

export interface WireError {
  code: ErrorCode;
  message: string;
  field?: string;
}

/** Errors cross IPC as values: Electron would flatten a thrown error to its message. */
export type IpcResult<T = unknown> = { ok: true; value: T } | { ok: false; error: WireError };

/** What the preload exposes as `window.evoflux`: one call per contract command. */
export interface EvofluxBridge {
  call<N extends CommandName>(name: N, input: InputOf<Contract[N]>): Promise<IpcResult<OutputOf<Contract[N]>>>;
  /** The desktop app's native file dialog for Import history: the chosen file's path, or null. */
  pickImportFile?(): Promise<string | null>;
}
