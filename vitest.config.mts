import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    environment: 'node',
    // Child processes run the compiled entry points: build them first when stale.
    globalSetup: ['test/global-setup.ts'],
    // Real SQLite files, workers and child processes: keep files isolated, two at a time on two cores.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
