/**
 * Runs `steps` one per turn of the event loop, so work that comes meanwhile (a request, a message)
 * is served between them and waits for one step at most. A step may add steps to the front of the
 * list. Resolves once the list is empty. (An unref'd immediate would wait for other I/O to wake
 * the event loop: the steps keep it turning.)
 */
export function runStepByStep(steps: (() => void)[]): Promise<void> {
  return new Promise((resolve) => {
    const step = () => {
      const next = steps.shift();
      if (next === undefined) return resolve();
      next();
      setImmediate(step);
    };
    setImmediate(step);
  });
}
