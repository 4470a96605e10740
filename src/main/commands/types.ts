import type { Engine } from '../engine';
import type { CommandMap, OutputOf, ParsedInputOf } from '../../shared/commands/define';

/** A handler receives input already validated by the command's schema. */
export type Handlers<M extends CommandMap> = {
  [K in keyof M]: (engine: Engine, input: ParsedInputOf<M[K]>) => OutputOf<M[K]> | Promise<OutputOf<M[K]>>;
};
