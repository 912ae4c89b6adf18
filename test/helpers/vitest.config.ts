import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/test-utils', include: ['src/**/*.test.ts'] } });
