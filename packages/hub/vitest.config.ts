import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/hub', include: ['src/**/*.test.ts'] } });
