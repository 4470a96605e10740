/**
 * Runs `steps` one per turn of the event loop, so work that comes meanwhile (a request, a message)
 * is served between them and waits for one step at most. A step may add steps to the front of the
 * list. Resolves once the list is empty. (An unref'd immediate would wait for other I/O to wake
 * the event loop: the steps keep it turning.)
 *
 * `busy` is asked before each step: a promise while work the step would delay is in flight (the
 * steps wait for it, then one more turn, so the work's own follow-up, such as writing its answer,
 * goes first), or null to run the step now.
 */
export function runStepByStep(steps: (() => void)[], busy: () => Promise<unknown> | null = () => null): Promise<void> {
  return new Promise((resolve) => {
    const step = () => {
      const wait = busy();
      if (wait) return void wait.then(() => setImmediate(step));
      const next = steps.shift();
      if (next === undefined) return resolve();
      next();
      setImmediate(step);
    };
    setImmediate(step);
  });
}
