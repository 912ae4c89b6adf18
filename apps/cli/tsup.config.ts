import { defineConfig } from 'tsup';
import { baseConfig } from '../../tsup.config.base.js';

// Code splitting keeps the dynamic imports lazy: `mcppipe up` starts its upstreams before Fastify, the
// aggregator and the HTTP host are loaded (cold start).
export default defineConfig({ ...baseConfig, entry: ['src/index.ts', 'src/cli.ts'], splitting: true });
