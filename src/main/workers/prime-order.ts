import { runStepByStep } from '../event-loop-steps';
import type { RequestGate } from '../request-gate';
import type { PrimeSteps } from './read-lane-tasks';

/**
 * How long a read-lane worker must go without a request before it primes its searches. A step
 * cannot be interrupted, and at 100k facts a cold search step takes 5-36 ms (the dialogue source
 * most): run while an agent's first calls came a few milliseconds apart, such steps held up a fresh
 * server's first `memory_begin_turn` by up to 22 ms (traced). Agents search later in a session,
 * after the pauses in which a model thinks; a client that calls without pause warms the code with
 * its own calls.
 */
export const SEARCH_PRIME_QUIET_MS = 250;

/**
 * Runs a worker's priming: the recalls at once, one per turn of the event loop (a request that
 * comes meanwhile waits for one step at most), then the searches, each only once `requests` has
 * been quiet for `quietMs`. Resolves when every step has run.
 */
export function primeInOrder(steps: PrimeSteps, requests: RequestGate, quietMs = SEARCH_PRIME_QUIET_MS): Promise<void> {
  return runStepByStep(steps.recalls).then(() => runStepByStep(steps.searches, () => requests.busyUntilQuiet(quietMs)));
}
