import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/oauth', include: ['src/**/*.test.ts'] } });
