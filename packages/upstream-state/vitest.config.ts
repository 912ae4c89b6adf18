import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/upstream-state', include: ['src/**/*.test.ts'] } });
