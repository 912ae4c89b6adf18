import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/supervisor', include: ['src/**/*.test.ts'] } });
