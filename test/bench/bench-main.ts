/**
 * How every bench runs its main: a failure prints and exits 1, and so does a run whose process
 * runs out of work while main is still waiting for something nothing will settle. Without the
 * second check such a bench exits 0 with only part of its figures printed: the LoCoMo extraction
 * section stopped after its baseline line that way, and the extraction bench before its legacy
 * import, while an engine's close waited for a child process nothing kept the event loop alive
 * for.
 *
 * `exit`: end the process as soon as main settles (benches that leave servers or children behind).
 */
export function runBench(main: () => Promise<unknown>, options: { exit?: boolean } = {}): void {
  let settled = false;
  process.on('exit', (code) => {
    if (settled || code !== 0) return;
    console.error(
      'bench: the process ran out of work before main() finished (it awaited something that never settled)',
    );
    process.exitCode = 1;
  });
  main().then(
    () => {
      settled = true;
      if (options.exit) process.exit(0);
    },
    (e: unknown) => {
      settled = true;
      console.error(e);
      process.exitCode = 1;
      if (options.exit) process.exit(1);
    },
  );
}
