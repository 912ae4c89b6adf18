import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/e2e', include: ['src/**/*.test.ts'] } });
