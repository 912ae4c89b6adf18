import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/errors', include: ['src/**/*.test.ts'] } });
