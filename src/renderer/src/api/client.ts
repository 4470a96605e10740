import type { CommandName, Contract, InputOf, OutputOf } from '../../../shared/contract';
import { chooseTransport, type Transport } from './transport';

export type Input<N extends CommandName> = InputOf<Contract[N]>;
export type Output<N extends CommandName> = OutputOf<Contract[N]>;

export interface ApiClient {
  transport: Transport['kind'];
  authenticated: boolean;
  call<N extends CommandName>(name: N, input: Input<N>): Promise<Output<N>>;
}

export function createClient(transport: Transport): ApiClient {
  return {
    transport: transport.kind,
    authenticated: transport.authenticated,
    call: (name, input) => transport.call(name, input) as Promise<never>,
  };
}

let shared: ApiClient | null = null;

/** The app's one client, on the transport this window offers. */
export function api(): ApiClient {
  return (shared ??= createClient(chooseTransport(window)));
}
