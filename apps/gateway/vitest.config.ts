import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/gateway', include: ['src/**/*.test.ts'] } });
