import type { Options } from 'tsup';

/** Shared tsup settings (STYLE.md §3): ESM, declarations, source maps, a clean dist. */
export const baseConfig: Options = {
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: false,
};
