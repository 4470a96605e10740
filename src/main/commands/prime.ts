import { contract } from '../../shared/contract';
import type { CommandMap } from '../../shared/commands/define';
import type { z } from 'zod';
import { compileObjectParser, objectSchemasIn } from './compile-parsers';
import { runStepByStep } from '../event-loop-steps';

/**
 * Builds the schemas of `names` and compiles their parsers in the background, one small step per
 * turn of the event loop (a command's input schema, its output schema, one object schema's
 * parser), so a long-running door's first call of each pays for neither, and a request that comes
 * meanwhile waits for one step at most (a whole command's parsers took up to 6 ms). (The contract
 * builds a command's schemas on first use, so a one-shot CLI run builds only the one it runs.)
 * With `busy` (see runStepByStep) no step runs while a request is in flight: a request's turns
 * of the event loop (its read-lane answer, its reply) are not shared with the priming.
 * Resolves when every schema is built and compiled.
 */
export function primeCommandSchemas(
  names: Iterable<string>,
  commands: CommandMap = contract,
  busy?: () => Promise<unknown> | null,
): Promise<void> {
  const steps: (() => void)[] = [...names]
    .filter((n) => Object.hasOwn(commands, n))
    .flatMap((name) => {
      const spec = commands[name]!;
      // Reading the getters builds the schemas; then each object schema's parser is compiled.
      return [
        () => void spec.input,
        () => void spec.output,
        () => steps.unshift(...[...objectSchemasIn(spec.input), ...objectSchemasIn(spec.output)].map(compileStep)),
      ];
    });
  return runStepByStep(steps, busy);
}

const compileStep = (schema: z.ZodType) => () => compileObjectParser(schema);
