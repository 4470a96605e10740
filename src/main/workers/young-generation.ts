import v8 from 'node:v8';

/**
 * Keeps V8's young generation at its starting size in this process (see bin/evoflux-memory.js,
 * which sets the same flag first thing). Starting a worker thread undoes the flag for the whole
 * process, so each read-lane worker sets it again once it runs; without this, an idle agent
 * server keeps ~45 MB of young generation it grew while answering (main thread and worker).
 */
export function keepYoungGenerationSmall(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}
