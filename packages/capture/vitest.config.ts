import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/capture', include: ['src/**/*.test.ts'] } });
