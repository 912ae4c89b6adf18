import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'mcppipe', include: ['src/**/*.test.ts'] } });
