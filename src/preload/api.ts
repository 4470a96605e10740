import type { CommandName, Contract, InputOf, OutputOf } from '../shared/contract';
import type { ErrorCode } from '../shared/errors';

/** The single IPC channel; main validates every call on it with the contract. */
export const IPC_CHANNEL = 'evoflux:call';

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
}
