import { defineConfig } from 'vitest/config';

// One project per workspace; `pnpm --filter @mcppipe/x test` runs one alone.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'test/*'],
    passWithNoTests: true,
  },
});
