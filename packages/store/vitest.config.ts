import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/store', include: ['src/**/*.test.ts'] } });
