/**
 * What the bundled CLI links for `toml` (the esbuild plugin in tsup.config.ts resolves `@mcppipe/config`'s import of
 * it here; cold start, issue 21). The parser (a 140 kB PEG parser, ~25 ms of CPU to evaluate) runs its module code on
 * the first TOML text parsed, so `mcppipe up --stdio …` / `--upstream …` and the JSON client configs never pay for it.
 * The `require` below is resolved by esbuild to the real `toml`, inlined in its lazy CommonJS wrapper.
 *
 * Not part of the public API: only the bundle links it.
 *
 * @module
 */
import { trace } from './up/trace.js';

/** The `toml` package's one export. */
interface TomlModule {
  parse(input: string): unknown;
}

let toml: TomlModule | undefined;

/**
 * `toml`'s `parse`, its module evaluated on the first call.
 *
 * @param input - TOML text
 * @returns the document
 * @throws the parser's own errors (peggy `SyntaxError` with `location`, compiler errors with `line`/`column`)
 */
export function parse(input: string): unknown {
  if (toml === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- inlined by esbuild, evaluated here on first use
    toml = require('toml') as TomlModule;
    trace('toml parser loaded');
  }
  return toml.parse(input);
}
