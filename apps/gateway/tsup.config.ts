import { cpSync, existsSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { baseConfig } from '../../tsup.config.base.js';

// The dashboard (DESIGN.md D3) ships inside this package: @mcppipe/dashboard's `vite build` output is copied to
// dist/dashboard, which the gateway serves at /dashboard (turbo builds the dashboard first: a devDependency).
const dashboard = new URL('../dashboard/dist/', import.meta.url);

export default defineConfig({
  ...baseConfig,
  entry: ['src/index.ts', 'src/cli.ts'],
  onSuccess: async () => {
    if (!existsSync(dashboard)) {
      throw new Error(
        'apps/dashboard/dist is missing: build @mcppipe/dashboard first (turbo run build does)',
      );
    }
    cpSync(dashboard, new URL('./dist/dashboard/', import.meta.url), { recursive: true });
  },
});
