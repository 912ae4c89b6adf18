import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/aggregator', include: ['src/**/*.test.ts'] } });
