import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: '@mcppipe/http', include: ['src/**/*.test.ts'] } });
