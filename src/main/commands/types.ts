import type { Engine } from '../engine';
import type { CommandMap, OutputOf, ParsedInputOf } from '../../shared/commands/define';
import type { Principal } from './principal';

/**
 * A handler receives input already validated by the command's schema and authorized for the
 * caller. Most handlers act on what the input names (dispatch has confined it); the few whose
 * answer depends on who asks (an agent's view of the wiki or of recent activity) read `principal`.
 */
export type Handlers<M extends CommandMap> = {
  [K in keyof M]: (
    engine: Engine,
    input: ParsedInputOf<M[K]>,
    principal: Principal,
  ) => OutputOf<M[K]> | Promise<OutputOf<M[K]>>;
};
