import { defineProject } from 'vitest/config';

// Real processes on a 2-core machine: generous timeouts; the CLI and gateway must be built first
// (`pnpm check` and `pnpm test` build everything before running vitest).
export default defineProject({
  test: {
    name: '@mcppipe/e2e',
    include: ['src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
