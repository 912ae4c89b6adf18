// The dashboard's build (DESIGN.md D3): static files under dist/, served by the gateway at /dashboard/ (the gateway's
// build copies them into its own dist/dashboard). No CDN, no runtime fetch of anything but our /api.
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/dashboard/',
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // one small app: no separate modulepreload polyfill, no inline scripts (CSP default-src 'self')
    modulePreload: false,
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
});
