import { contract } from '../../shared/contract';
import type { CommandMap } from '../../shared/commands/define';

/**
 * Builds the schemas of `names` in the background, one command per turn of the event loop, so a
 * long-running door's first call of each does not pay for building them. (The contract builds a
 * command's schemas on first use, so a one-shot CLI run builds only the one it runs.) Requests
 * that arrive meanwhile are served between the steps. Resolves when every schema is built. (An
 * unref'd immediate would wait for other I/O to wake the event loop: the steps must keep it turning.)
 */
export function primeCommandSchemas(names: Iterable<string>, commands: CommandMap = contract): Promise<void> {
  const pending = [...names].filter((n) => Object.hasOwn(commands, n));
  return new Promise((resolve) => {
    const step = () => {
      const name = pending.shift();
      if (name === undefined) return resolve();
      const spec = commands[name]!;
      // Reading the getters builds the schemas.
      if (spec.input && spec.output) setImmediate(step);
    };
    setImmediate(step);
  });
}
