import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/tunnel', include: ['src/**/*.test.ts'] } });
