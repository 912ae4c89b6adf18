import { defineConfig } from 'tsup';
import { baseConfig } from '../../tsup.config.base.js';

// Two entries: the root (no child_process) and the Node-only `./stdio`, which the root imports lazily at runtime.
// Code splitting keeps that literal `import('./stdio.js')` lazy (without it esbuild would inline the module).
export default defineConfig({ ...baseConfig, entry: ['src/index.ts', 'src/stdio.ts'], splitting: true });
