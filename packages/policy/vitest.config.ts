import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/policy', include: ['src/**/*.test.ts'] } });
