import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/namespace', include: ['src/**/*.test.ts'] } });
