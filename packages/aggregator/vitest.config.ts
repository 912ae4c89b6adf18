import { defineProject } from 'vitest/config';

// Real upstream processes on a shared 2-core machine: generous timeouts, no timing assertions.
export default defineProject({
  test: {
    name: '@mcppipe/aggregator',
    include: ['src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
