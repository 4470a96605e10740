import type { CommandName, Contract, InputOf, OutputOf } from '../shared/contract';
import type { ErrorCode } from '../shared/errors';

/** The single IPC channel; main validates every call on it with the contract. */
export const IPC_CHANNEL = 'evoflux:call';
/** Main -> window only: something in the data home changed (payload: ChangeEvent). */
export const IPC_CHANGED_CHANNEL = 'evoflux:changed';

/** What the window hears when the data home changed (the database, wiki files or settings). */
export interface ChangeNotice {
  at: number;
  sources: string[];
}
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
  /** Calls `listener` whenever the data home changes; returns the unsubscribe function. */
  onChanged?(listener: (notice: ChangeNotice) => void): () => void;
  /** The desktop app's native file dialog for Import history: the chosen file's path, or null. */
  pickImportFile?(): Promise<string | null>;
}
