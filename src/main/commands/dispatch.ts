import type { z } from 'zod';
import type { Engine } from '../engine';
import { contract, isCommandName, type CommandName, type Contract, type OutputOf } from '../../shared/contract';
import { CommandError } from '../../shared/errors';
import { handlers } from './index';
import { authorize, confineOutput, remember } from './confine';
import type { Principal } from './principal';

/** Turns a zod failure into one clear error naming the first offending field. */
export function toCommandError(error: z.ZodError): CommandError {
  const issue = error.issues[0];
  if (!issue) return new CommandError('invalid_input', 'invalid input');
  const unknownKey = issue.code === 'unrecognized_keys' ? (issue.keys as string[])[0] : undefined;
  const field = [...issue.path.map(String), ...(unknownKey ? [unknownKey] : [])].join('.') || 'input';
  const message = unknownKey ? 'is not a known field' : issue.message;
  return new CommandError('invalid_input', `${field}: ${message}`, field);
}

export function parseInput<N extends CommandName>(name: N, raw: unknown): z.output<Contract[N]['input']> {
  const parsed = contract[name].input.safeParse(raw ?? {});
  if (!parsed.success) throw toCommandError(parsed.error);
  return parsed.data as z.output<Contract[N]['input']>;
}

/**
 * The one entry point every door calls: validate, confine to the caller, run, check the output
 * against the contract, and confine the answer. A bad input or a session outside the caller's
 * reach throws before the handler runs, so it changes nothing. Every door names its caller: the
 * owner's doors pass OWNER, an agent connection passes its own AgentPrincipal.
 */
export async function dispatch<N extends CommandName>(
  engine: Engine,
  name: N | string,
  raw: unknown,
  principal: Principal,
): Promise<OutputOf<Contract[N]>> {
  if (!isCommandName(name)) throw new CommandError('not_found', `unknown command: ${name}`, 'command');
  engine.requests.enter();
  try {
    const input = authorize(engine, principal, name, parseInput(name, raw));
    const handler = handlers[name] as (e: Engine, i: unknown, p: Principal) => unknown;
    const output = await handler(engine, input, principal);
    const checked = contract[name].output.safeParse(output);
    if (!checked.success) {
      throw new CommandError('internal', `${name} produced output outside its contract: ${checked.error.message}`);
    }
    remember(principal, name, checked.data);
    return confineOutput(engine, principal, name, checked.data) as OutputOf<Contract[N]>;
  } finally {
    engine.requests.leave();
  }
}
