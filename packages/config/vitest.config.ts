import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/config', include: ['src/**/*.test.ts'] } });
