import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/events', include: ['src/**/*.test.ts'] } });
