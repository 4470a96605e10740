import { ensureBuilt } from './helpers/build';

/** Runs once before any test file: the compiled CLI, worker and window must match the sources. */
export default function setup(): void {
  ensureBuilt();
}
