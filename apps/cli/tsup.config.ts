import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';
import { baseConfig } from '../../tsup.config.base.js';

/**
 * The MCP SDK's `_shims` (its Node shims import the ajv validator, which runs at import) resolved to src/sdkShims.ts,
 * which loads the SDK's validator on its first use.
 */
const lazySdkValidator = {
  name: 'mcppipe-lazy-sdk-validator',
  setup(build: { onResolve(o: { filter: RegExp }, cb: () => { path: string }): void }) {
    build.onResolve({ filter: /^@modelcontextprotocol\/(client|server)\/_shims$/ }, () => ({
      path: fileURLToPath(new URL('src/sdkShims.ts', import.meta.url)),
    }));
  },
};

const tomlShim = fileURLToPath(new URL('src/tomlShim.ts', import.meta.url));

/**
 * `toml` (imported by `@mcppipe/config`) resolved to src/tomlShim.ts, which evaluates the parser on the first TOML
 * text; the shim's own `require('toml')` resolves to the real package (a dependency of `@mcppipe/config`).
 */
const lazyToml = {
  name: 'mcppipe-lazy-toml',
  setup(build: {
    onResolve(o: { filter: RegExp }, cb: (a: { importer: string }) => { path: string }): void;
  }) {
    const real = createRequire(new URL('../../packages/config/package.json', import.meta.url)).resolve(
      'toml',
    );
    build.onResolve({ filter: /^toml$/ }, (a) => ({ path: a.importer === tomlShim ? real : tomlShim }));
  },
};

/**
 * Cold start (issue 21.2): the CLI app is bundled. Our `@mcppipe/*` packages and the MCP SDK (with zod) are inlined,
 * so Node resolves and links a few chunks instead of hundreds of files. The HTTP front door is `node:http` (no
 * Fastify: its 1.4 MB with ajv and fast-json-stringify was half of what V8 compiled before listening).
 * pino is inlined too (measured: ~60 ms less CPU until listening than loading its files): the CLI uses no pino
 * transport (those run in worker threads that load files by path), only `pino.destination` and pino-pretty as an
 * in-process stream. Kept external, because bundling breaks them or they are off the start path: pino-pretty (only
 * for pretty logs), yargs (reads its locale files next to its own modules; not loaded for a plain `up` command line),
 * the prompts and prom-client (loaded only on demand). This is an app, not a library: STYLE.md §3's "never noExternal a
 * workspace library into another" is about libraries. Code splitting keeps the dynamic imports lazy: `mcppipe up`
 * spawns its upstreams before yargs loads, and the serving side loads while they start.
 */
export default defineConfig({
  ...baseConfig,
  entry: ['src/index.ts', 'src/cli.ts'],
  splitting: true,
  noExternal: [/^@mcppipe\//, /^@modelcontextprotocol\//, /^pino$/],
  esbuildPlugins: [lazySdkValidator, lazyToml],
  // inlined CommonJS (cross-spawn, pino) calls `require` for Node's modules and for pino
  banner: {
    js: "import { createRequire as __mcppipeCreateRequire } from 'node:module';\nconst require = __mcppipeCreateRequire(import.meta.url);",
  },
});
